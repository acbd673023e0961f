/**
 * The local PSP against the central bank's API Pix 2.9.0 file, both ways, as a PSP's
 * certification would check it: every answer it sends during a live-mode lifecycle driven by the
 * adapter (and the refusals a real PSP gives) is one the file allows (`conformance.ts`), every
 * callback body validates against the file's `WebhookPixBody`, and every request the adapter
 * sends is what the file asks for (methods, paths, ids, query, headers). Without it the adapter
 * would be tested against a PSP of our own invention.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPixAnswerDrifts, apiPixRequestDrifts, pathTemplate } from '../../infra/local/psp/conformance.ts';
import { loadApiPixSchemas } from '../../infra/local/psp/schemas.ts';
import type { LocalPsp, PspAnswer } from '../../infra/local/psp/server.ts';
import { eventually } from '../helpers/eventually.ts';
import {
  adapterFor,
  control,
  DIRECT,
  newTxid,
  pspRequest,
  pspToken,
  startCallbackReceiver,
  startPsp,
} from '../helpers/psp.ts';

const schemas = loadApiPixSchemas();
let psp: LocalPsp;
const answers: PspAnswer[] = [];
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;

beforeAll(async () => {
  psp = await startPsp({ onAnswer: (answer) => answers.push(answer) });
  receiver = await startCallbackReceiver();
});

afterAll(async () => {
  await psp?.stop();
  await receiver?.stop();
});

const drifts = (recorded: PspAnswer[]) =>
  recorded.flatMap((answer) =>
    apiPixAnswerDrifts(schemas, answer, { basePath: '/v2', tokenPath: '/oauth/token' }).map(
      (drift) => `${answer.method} ${answer.path} → ${answer.status}: ${drift}`,
    ),
  );

/** `PUT /cob/{txid} 201`, `oauth POST 200`: what was answered, by the file's path template. */
const answered = (recorded: PspAnswer[]) =>
  new Set(
    recorded.map((a) =>
      a.path === '/oauth/token'
        ? `POST /oauth/token ${a.status}`
        : `${a.method} ${pathTemplate(schemas, a.path.slice('/v2'.length)) ?? a.path} ${a.status}`,
    ),
  );

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/**
 * A merchant's day through the adapter: the callback registered, charges created (again, by
 * retry), read, paid, removed; Pix read and listed page by page; devolutions asked, asked again,
 * refused, failed and read; and what a real PSP refuses (unknown ids, bodies and queries the
 * standard refuses, a token without the scope, no token, bad credentials, an outage).
 */
async function lifecycle(): Promise<void> {
  const adapter = adapterFor(psp, { pixPageSize: 1 });
  await adapter.registerWebhook(receiver.url);
  const token = await pspToken(psp);
  expect((await pspRequest(psp, { method: 'GET', path: `/v2/webhook/${psp.pixKey}`, token })).status).toBe(
    200,
  );
  expect(
    (await pspRequest(psp, { method: 'GET', path: '/v2/webhook/outra@example.com', token })).status,
  ).toBe(404);

  const from = new Date(Date.now() - 1000);
  const txid = newTxid();
  const charge = { txid, amount: 2500, expiresIn: 3600, payerDocument: '12345678909', payerName: 'Fulano' };
  await adapter.createCob({ ...charge, description: 'Pedido 1' });
  await adapter.createCob({ ...charge, description: 'Pedido 1' });
  expect((await adapter.getCob(txid)).status).toBe('ATIVA');
  const paid = await control(psp, 'POST', `/cob/${txid}/pay`, { payerDocument: '12345678909' });
  const endToEndId = paid.endToEndId as string;
  const other = newTxid();
  await adapter.createCob({ txid: other, amount: 990, expiresIn: 60 });
  const second = (await control(psp, 'POST', `/cob/${other}/pay`, {})).endToEndId as string;
  expect((await adapter.getCob(txid)).status).toBe('CONCLUIDA');
  expect((await adapter.getPix(endToEndId)).amount).toBe(2500);
  const to = new Date(Date.now() + 1000);
  expect((await adapter.listPix({ from, to })).map((p) => p.endToEndId)).toEqual([endToEndId, second]);
  expect(await adapter.listPix({ from, to, payerDocument: '12345678909', txid })).toHaveLength(1);

  await adapter.requestDevolution({ endToEndId, returnId: 'D1', amount: 1000 });
  await adapter.requestDevolution({ endToEndId, returnId: 'D1', amount: 1000 });
  await control(psp, 'POST', '/devolucao/D2/fail', { motivo: 'Conta do pagador encerrada' });
  await adapter.requestDevolution({ endToEndId, returnId: 'D2', amount: 500 });
  expect(
    await errorOf(adapter.requestDevolution({ endToEndId, returnId: 'D3', amount: 9000 })),
  ).toMatchObject({
    name: 'DevolutionRefusedError',
  });
  await eventually(async () =>
    expect(await adapter.getDevolution({ endToEndId, returnId: 'D1' })).toEqual({ status: 'DEVOLVIDO' }),
  );
  await eventually(async () =>
    expect(await adapter.getDevolution({ endToEndId, returnId: 'D2' })).toMatchObject({
      status: 'NAO_REALIZADO',
    }),
  );
  expect((await adapter.getPix(endToEndId)).devolutions).toHaveLength(2);

  const removed = newTxid();
  await adapter.createCob({ txid: removed, amount: 100, expiresIn: 60 });
  await adapter.cancelCob(removed);
  await adapter.cancelCob(removed);

  // What a real PSP refuses, each with its problem document.
  expect(await errorOf(adapter.getCob(newTxid()))).toMatchObject({ name: 'ProviderNotFoundError' });
  expect(await errorOf(adapter.getPix(`E99999998202601010000${'x'.repeat(11)}`))).toMatchObject({
    name: 'ProviderNotFoundError',
  });
  expect(await errorOf(adapter.getDevolution({ endToEndId, returnId: 'D9' }))).toMatchObject({
    name: 'ProviderNotFoundError',
  });
  expect(await errorOf(adapter.cancelCob(newTxid()))).toMatchObject({ name: 'ProviderNotFoundError' });
  expect(await errorOf(adapter.createCob({ txid: newTxid(), amount: 0, expiresIn: 60 }))).toMatchObject({
    name: 'ProviderRejectedError',
  });
  expect(await errorOf(adapter.createCob({ txid: 'short', amount: 100, expiresIn: 60 }))).toMatchObject({
    name: 'ProviderRejectedError',
  });
  expect(
    await errorOf(adapterFor(psp, { pixKey: 'outra@example.com' }).registerWebhook(receiver.url)),
  ).toMatchObject({
    providerErrorCode: 'WebhookOperacaoInvalida',
  });
  const inverted = await pspRequest(psp, {
    method: 'GET',
    path: `/v2/pix?inicio=${to.toISOString()}&fim=${from.toISOString()}`,
    token,
  });
  expect(inverted.status).toBe(400);
  const devolucaoId = await pspRequest(psp, {
    method: 'PUT',
    path: `/v2/pix/${endToEndId}/devolucao/a-b`,
    token,
    body: { valor: '1.00' },
  });
  expect(devolucaoId.status).toBe(400);
  const readOnly = await pspToken(psp, 'cob.read');
  expect(
    (await pspRequest(psp, { method: 'PUT', path: `/v2/cob/${newTxid()}`, token: readOnly, body: {} }))
      .status,
  ).toBe(403);
  expect((await pspRequest(psp, { method: 'GET', path: `/v2/cob/${txid}` })).status).toBe(401);
  const unknownPix = `E99999998202601010000${'y'.repeat(11)}`;
  const path = `/v2/pix/${unknownPix}/devolucao/D1`;
  expect((await pspRequest(psp, { method: 'PUT', path, token, body: { valor: '1.00' } })).status).toBe(404);
  expect(await errorOf(adapterFor(psp, { clientSecret: 'wrong' }).getCob(txid))).toMatchObject({
    providerErrorCode: 'invalid_client',
  });
  await control(psp, 'POST', '/mode', { mode: 'error5xx', count: 1 });
  expect(await adapter.getCob(txid)).toMatchObject({ status: 'CONCLUIDA' });
}

describe('API Pix both ways', { timeout: 60_000 }, () => {
  let before: number;
  beforeAll(async () => {
    before = answers.length;
    await lifecycle();
  }, 60_000);

  it('every answer the PSP sends in a live-mode lifecycle is one the standard allows', () => {
    const recorded = answers.slice(before);
    expect(drifts(recorded)).toEqual([]);
    // The lifecycle reached every answer the adapter reads, so the check above is not vacuous.
    expect([...answered(recorded)]).toEqual(
      expect.arrayContaining([
        'POST /oauth/token 200',
        'POST /oauth/token 401',
        'PUT /webhook/{chave} 200',
        'PUT /webhook/{chave} 400',
        'GET /webhook/{chave} 200',
        'GET /webhook/{chave} 404',
        'PUT /cob/{txid} 201',
        'PUT /cob/{txid} 400',
        'GET /cob/{txid} 200',
        'GET /cob/{txid} 401',
        'GET /cob/{txid} 404',
        'GET /cob/{txid} 503',
        'PATCH /cob/{txid} 200',
        'PATCH /cob/{txid} 400',
        'PATCH /cob/{txid} 404',
        'PUT /cob/{txid} 403',
        'GET /pix/{e2eid} 200',
        'GET /pix/{e2eid} 404',
        'GET /pix 200',
        'GET /pix 400',
        'PUT /pix/{e2eid}/devolucao/{id} 201',
        'PUT /pix/{e2eid}/devolucao/{id} 400',
        'PUT /pix/{e2eid}/devolucao/{id} 404',
        'GET /pix/{e2eid}/devolucao/{id} 200',
        'GET /pix/{e2eid}/devolucao/{id} 404',
      ]),
    );
  });

  it('the check fails on a drift: the same answers with one field broken', () => {
    const recorded = answers.slice(before);
    const devolucao = recorded.find(
      (a) => a.method === 'PUT' && /\/devolucao\//.test(a.path) && a.status === 201,
    );
    const problem = recorded.find((a) => a.status === 404);
    if (!devolucao || !problem) throw new Error('the lifecycle answered no devolution or no 404');
    // A field set to undefined is left out of the JSON.
    const broken = (answer: PspAnswer, patch: Record<string, unknown>) => ({
      ...answer,
      body: JSON.stringify({ ...JSON.parse(answer.body), ...patch }),
    });
    expect(drifts([broken(devolucao, { rtrId: undefined })])).toEqual([
      expect.stringContaining("must have required property 'rtrId'"),
    ]);
    expect(drifts([broken(devolucao, { valor: 10 })])).toEqual([
      expect.stringContaining('/valor must be string'),
    ]);
    expect(drifts([broken(problem, { type: 'https://pix.bcb.gov.br/api/v2/error/Sumiu' })])).toEqual([
      expect.stringContaining('is not https://pix.bcb.gov.br/api/v2/error/<TipoErro>'),
    ]);
    expect(drifts([{ ...problem, headers: { 'content-type': 'application/json' } }])).toEqual([
      expect.stringContaining('RFC 7807 says application/problem+json'),
    ]);
  });

  it('every request the adapter sends is one the file asks for: operation, ids, query, headers, OAuth2', () => {
    const sent = answers.slice(before).filter((a) => a.requestHeaders[DIRECT] === undefined);
    // `short` is a txid the test gave on purpose (the PSP refused it: 400 CobOperacaoInvalida).
    const calls = sent.filter((a) => a.path.startsWith('/v2/') && !a.path.endsWith('/cob/short'));
    const wrong = calls.flatMap((a) =>
      apiPixRequestDrifts(schemas, a, '/v2').map((drift) => `${a.method} ${a.path}?${a.query}: ${drift}`),
    );
    expect(wrong).toEqual([]);
    const operation = (a: PspAnswer) => `${a.method} ${pathTemplate(schemas, a.path.slice('/v2'.length))}`;
    expect(new Set(calls.map(operation))).toEqual(
      new Set([
        'PUT /webhook/{chave}',
        'PUT /cob/{txid}',
        'GET /cob/{txid}',
        'PATCH /cob/{txid}',
        'GET /pix/{e2eid}',
        'GET /pix',
        'PUT /pix/{e2eid}/devolucao/{id}',
        'GET /pix/{e2eid}/devolucao/{id}',
      ]),
    );

    // GET /pix: every page of the period, in RFC 3339 with its offset (checked above), by payer and txid.
    const lists = calls.filter((a) => operation(a) === 'GET /pix').map((a) => new URLSearchParams(a.query));
    expect(
      lists.map((q) => [q.get('paginacao.paginaAtual'), q.get('paginacao.itensPorPagina'), q.get('cpf')]),
    ).toEqual([
      ['0', '1', null],
      ['1', '1', null],
      ['0', '1', '12345678909'],
    ]);
    expect(lists[2]?.get('txid')).toMatch(/^[a-zA-Z0-9]{26,35}$/);

    // Idempotent re-sends are the same request: a cob PUT by its txid, a devolution by its id.
    const bodiesOf = (method: string, path: RegExp) =>
      calls.filter((a) => a.method === method && path.test(a.path)).map((a) => `${a.path} ${a.requestBody}`);
    const cobPuts = bodiesOf('PUT', /\/cob\//);
    expect(cobPuts[0]).toBe(cobPuts[1]);
    expect(JSON.parse(cobPuts[0]?.split(' ').slice(1).join(' ') ?? '')).toEqual({
      calendario: { expiracao: 3600 },
      devedor: { cpf: '12345678909', nome: 'Fulano' },
      valor: { original: '25.00' },
      chave: psp.pixKey,
      solicitacaoPagador: 'Pedido 1',
    });
    const d1 = bodiesOf('PUT', /\/devolucao\/D1$/);
    expect(d1).toHaveLength(2);
    expect(d1[0]).toBe(d1[1]);
    expect(d1[0]).toMatch(/ \{"valor":"10\.00"\}$/);

    // OAuth2 client credentials (RFC 6749 §4.4): HTTP Basic, a form asking for the scopes it needs.
    const tokens = sent.filter((a) => a.path === '/oauth/token');
    expect(tokens.length).toBeGreaterThanOrEqual(1);
    for (const token of tokens) {
      expect(token.method).toBe('POST');
      expect(token.requestHeaders['content-type']).toBe('application/x-www-form-urlencoded');
      expect(String(token.requestHeaders.authorization)).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
      expect(Object.fromEntries(new URLSearchParams(token.requestBody))).toEqual({
        grant_type: 'client_credentials',
        scope: 'cob.write cob.read pix.write pix.read webhook.write',
      });
    }
  });

  it('every callback the PSP posts is the standard’s WebhookPixBody, at {webhookUrl}/pix', async () => {
    await eventually(() =>
      expect(receiver.received.filter((c) => c.body.pix.some((p) => p.devolucoes?.length === 2))).not.toEqual(
        [],
      ),
    );
    expect(receiver.received.length).toBeGreaterThanOrEqual(4);
    for (const { path, body } of receiver.received) {
      expect(path).toBe('/callbacks/acct/pix');
      expect({ body, valid: schemas.webhookPix(body), errors: schemas.webhookPix.errors }).toMatchObject({
        valid: true,
      });
    }
  });
});
