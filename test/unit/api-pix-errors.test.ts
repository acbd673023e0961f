/** The API Pix adapter's pure parts: one error factory as a table, the wire format of money and of a cob. */

import { describe, expect, it } from 'vitest';
import { repairPattern } from '../../infra/local/psp/schemas.ts';
import { cobRequest } from '../../shared/providers/api-pix/adapter.ts';
import {
  type ApiPixOperation,
  fromNetworkError,
  fromResponse,
  isTransient,
  retryAfterMs,
} from '../../shared/providers/api-pix/errors.ts';
import { fromDecimalString, toDecimalString } from '../../shared/providers/api-pix/money.ts';
import {
  DevolutionRefusedError,
  ProviderNotFoundError,
  ProviderQueryNotOfferedError,
  ProviderRejectedError,
  ProviderRequestError,
  ProviderUnavailableError,
} from '../../shared/providers/provider.ts';

const problem = (status: number, tipo: string, extra: Record<string, unknown> = {}) => ({
  type: `https://pix.bcb.gov.br/api/v2/error/${tipo}`,
  title: tipo,
  status,
  ...extra,
});

describe('fromResponse', () => {
  const table: [ApiPixOperation, number, unknown, new (...args: never[]) => Error, string | undefined][] = [
    ['createCob', 503, problem(503, 'ServicoIndisponivel'), ProviderUnavailableError, undefined],
    ['createCob', 500, '<html>Internal error</html>', ProviderUnavailableError, undefined],
    ['getCob', 504, problem(504, 'IndisponibilidadePorTempoEsgotado'), ProviderUnavailableError, undefined],
    ['getPix', 429, undefined, ProviderUnavailableError, undefined],
    ['token', 503, undefined, ProviderUnavailableError, undefined],
    // No answer about the request itself: the cob may exist, so not a refusal that fails the charge.
    ['createCob', 408, undefined, ProviderUnavailableError, undefined],
    ['createCob', 425, undefined, ProviderUnavailableError, undefined],
    ['createCob', 302, undefined, ProviderUnavailableError, undefined],
    ['createCob', 400, problem(400, 'CobOperacaoInvalida'), ProviderRejectedError, 'CobOperacaoInvalida'],
    ['createCob', 404, problem(404, 'NaoEncontrado'), ProviderRejectedError, 'NaoEncontrado'],
    ['createCob', 422, 'unprocessable', ProviderRejectedError, 'http_422'],
    ['cancelCob', 400, problem(400, 'CobOperacaoInvalida'), ProviderRejectedError, 'CobOperacaoInvalida'],
    ['cancelCob', 404, problem(404, 'CobNaoEncontrado'), ProviderNotFoundError, 'CobNaoEncontrado'],
    ['getCob', 404, problem(404, 'CobNaoEncontrado'), ProviderNotFoundError, 'CobNaoEncontrado'],
    ['getPix', 404, problem(404, 'PixNaoEncontrado'), ProviderNotFoundError, 'PixNaoEncontrado'],
    // A PSP without the infraction feed: "not offered", not an acquirer error.
    ['listInfractions', 404, problem(404, 'NaoEncontrado'), ProviderQueryNotOfferedError, 'NaoEncontrado'],
    ['listInfractions', 403, problem(403, 'AcessoNegado'), ProviderQueryNotOfferedError, 'AcessoNegado'],
    ['listInfractions', 405, undefined, ProviderQueryNotOfferedError, 'http_405'],
    [
      'listInfractions',
      400,
      problem(400, 'RequisicaoInvalida'),
      ProviderQueryNotOfferedError,
      'RequisicaoInvalida',
    ],
    [
      'getDevolution',
      404,
      problem(404, 'PixDevolucaoNaoEncontrada'),
      ProviderNotFoundError,
      'PixDevolucaoNaoEncontrada',
    ],
    [
      'requestDevolution',
      400,
      problem(400, 'PixDevolucaoInvalida'),
      DevolutionRefusedError,
      'PixDevolucaoInvalida',
    ],
    ['requestDevolution', 404, problem(404, 'PixNaoEncontrado'), DevolutionRefusedError, 'PixNaoEncontrado'],
    ['createCob', 403, problem(403, 'AcessoNegado'), ProviderRequestError, 'AcessoNegado'],
    ['requestDevolution', 401, problem(401, 'AcessoNegado'), ProviderRequestError, 'AcessoNegado'],
    ['token', 401, { error: 'invalid_client' }, ProviderRequestError, 'invalid_client'],
    ['token', 400, { error: 'unsupported_grant_type' }, ProviderRequestError, 'unsupported_grant_type'],
    ['listPix', 400, problem(400, 'PixConsultaInvalida'), ProviderRequestError, 'PixConsultaInvalida'],
    // A PSP without the payer filter: "not offered", not an acquirer error; credentials refused otherwise.
    ['listPixByPayer', 403, problem(403, 'AcessoNegado'), ProviderQueryNotOfferedError, 'AcessoNegado'],
    ['listPix', 403, problem(403, 'AcessoNegado'), ProviderRequestError, 'AcessoNegado'],
    [
      'registerWebhook',
      400,
      problem(400, 'WebhookOperacaoInvalida'),
      ProviderRequestError,
      'WebhookOperacaoInvalida',
    ],
    ['getCob', 418, 'teapot', ProviderRequestError, 'http_418'],
  ];

  it.each(table)('%s answered %i %j → %o (%s)', (operation, status, body, errorClass, code) => {
    const error = fromResponse(operation, status, body);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as { providerErrorCode?: string }).providerErrorCode).toBe(code);
  });

  it('keeps at most 500 characters of a problem text, which has no limit in the standard', () => {
    const error = fromResponse(
      'createCob',
      400,
      problem(400, 'CobOperacaoInvalida', { detail: 'x'.repeat(450_000) }),
    );
    expect(error.message.length).toBeLessThan(600);
  });

  it('keeps the title, detail and every violation in the message', () => {
    const error = fromResponse(
      'createCob',
      400,
      problem(400, 'CobOperacaoInvalida', {
        title: 'Cobrança inválida.',
        detail: 'Não respeita o schema.',
        violacoes: [
          { razao: 'não respeita o schema', propriedade: 'cob.valor.original' },
          { razao: 'é zero', propriedade: 'cob.calendario.expiracao' },
        ],
      }),
    );
    expect(error.message).toBe(
      'API Pix createCob answered 400: Cobrança inválida.; Não respeita o schema.; ' +
        'cob.valor.original: não respeita o schema; cob.calendario.expiracao: é zero',
    );
  });

  it('a refused devolution names the violated properties (the adapter tells "id already used" by them)', () => {
    const error = fromResponse(
      'requestDevolution',
      400,
      problem(400, 'PixDevolucaoInvalida', {
        violacoes: [{ razao: 'id já utilizado', propriedade: 'devolucao.id' }],
      }),
    );
    expect(error).toBeInstanceOf(DevolutionRefusedError);
    expect((error as DevolutionRefusedError).properties).toEqual(['devolucao.id']);
    expect(
      (fromResponse('requestDevolution', 400, problem(400, 'PixDevolucaoInvalida')) as DevolutionRefusedError)
        .properties,
    ).toEqual([]);
  });
});

describe('network errors and retries', () => {
  it('a reset connection is unavailable and worth retrying', () => {
    const error = fromNetworkError(
      'getCob',
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    );
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(isTransient(error)).toBe(true);
  });

  it('a timeout says so', () => {
    const abort = new DOMException('The operation was aborted', 'AbortError');
    Object.defineProperty(abort, 'cause', { value: new DOMException('timeout', 'TimeoutError') });
    expect(fromNetworkError('getPix', abort).message).toBe('API Pix getPix timed out');
  });

  it('a refused server certificate is unavailable but not retried', () => {
    const error = fromNetworkError(
      'token',
      Object.assign(new Error('self-signed certificate in certificate chain'), {
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
      }),
    );
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(isTransient(error)).toBe(false);
  });

  it('a refusal is never retried', () => {
    expect(isTransient(fromResponse('createCob', 400, problem(400, 'CobOperacaoInvalida')))).toBe(false);
    expect(isTransient(fromResponse('createCob', 503, undefined))).toBe(true);
  });
});

describe('Retry-After (RFC 9110 §10.2.3)', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Tue, 24 Nov 2026 12:00:30 GMT', 30_000],
    ['Tue, 24 Nov 2026 11:59:00 GMT', 0],
    [undefined, undefined],
    ['', undefined],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
  ])('%j → %j ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });

  it('rides on the unavailable error of a 429 or 5xx', () => {
    expect((fromResponse('getCob', 429, undefined, 2000) as ProviderUnavailableError).retryAfterMs).toBe(
      2000,
    );
    expect((fromResponse('getCob', 503, undefined) as ProviderUnavailableError).retryAfterMs).toBeUndefined();
  });
});

describe('money on the wire', () => {
  // toDecimalString's own cases are in sandbox-cob.test.ts: here, that reading is its inverse.
  it.each([0, 5, 1050, 123456, 9_999_999_999_99])('reads back %i centavos', (centavos) => {
    expect(fromDecimalString(toDecimalString(centavos))).toBe(centavos);
  });

  it.each(['10.5', '10', '-1.00', '1,00', ' 1.00'])('refuses %j', (decimal) => {
    expect(() => fromDecimalString(decimal)).toThrow(/Not an API Pix amount/);
  });
});

describe('cobRequest', () => {
  const base = { txid: 'x'.repeat(32), amount: 1050, expiresIn: 3600 };

  it('writes expiry, amount and key, and no payer when none is given', () => {
    expect(cobRequest(base, 'loja@example.com')).toEqual({
      calendario: { expiracao: 3600 },
      valor: { original: '10.50' },
      chave: 'loja@example.com',
    });
  });

  it('names the payer by CPF or CNPJ by length, only with a name', () => {
    expect(
      cobRequest({ ...base, payerDocument: '123.456.789-09', payerName: 'Fulano' }, 'k').devedor,
    ).toEqual({
      cpf: '12345678909',
      nome: 'Fulano',
    });
    expect(
      cobRequest({ ...base, payerDocument: '12.abc.345/01de-35', payerName: 'Acme' }, 'k').devedor,
    ).toEqual({
      cnpj: '12ABC34501DE35',
      nome: 'Acme',
    });
    expect(cobRequest({ ...base, payerDocument: '12345678909' }, 'k').devedor).toBeUndefined();
  });

  it('cuts the description to the 140 characters of solicitacaoPagador, never within a surrogate pair', () => {
    expect(cobRequest({ ...base, description: 'a'.repeat(200) }, 'k').solicitacaoPagador).toHaveLength(140);
    const emoji =
      cobRequest({ ...base, description: `${'a'.repeat(139)}🙂🙂` }, 'k').solicitacaoPagador ?? '';
    expect(emoji).toBe(`${'a'.repeat(139)}🙂`);
    expect(emoji.isWellFormed()).toBe(true);
  });

  it('cuts the payer name to the 200 code points of devedor.nome', () => {
    const name = 'e\u0301'.repeat(200); // 200 characters as read, 400 code points
    const cob = cobRequest({ ...base, payerDocument: '52998224725', payerName: name }, 'k');
    expect(Array.from((cob.devedor as { nome: string }).nome)).toHaveLength(200);
  });
});

describe('the published schema patterns, repaired', () => {
  it.each([
    ['/^\\d{11}$/', '^\\d{11}$'],
    ['[a-zA-Z0-9]{26,35}', '^(?:[a-zA-Z0-9]{26,35})$'],
    ['^[0-9A-Z]{14}$', '^[0-9A-Z]{14}$'],
  ])('%s → %s', (published, repaired) => {
    expect(repairPattern(published)).toBe(repaired);
  });
});
