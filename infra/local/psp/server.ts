/**
 * A local PSP speaking the central bank's API Pix 2.9.0 (the subset the adapter uses), for
 * tests and for trying live mode on one machine (`npm run psp`):
 * - HTTPS that requires a client certificate from its own test CA (made at start, `pki.ts`);
 * - `POST /oauth/token`: OAuth2 client credentials (HTTP Basic), the client certificate's
 *   subject must be the client id; the token carries the scopes asked for (`scope`), within the
 *   client's (`clientScopes`), or all of the client's when none are asked for;
 * - each API route requires the OAuth2 scope the standard's `security` names for it (`cob.write`
 *   for `PUT`/`PATCH /cob`, `cob.read` for `GET /cob`, `pix.read` for `GET /pix…` and
 *   `GET …/devolucao`, `pix.write` for `PUT …/devolucao`, `webhook.write`/`webhook.read` for
 *   `/webhook`): a token without it is 403 `AcessoNegado`, as a real PSP answers;
 * - under `/v2`: `PUT|GET|PATCH /cob/{txid}`, `GET /pix/{e2eid}`, `GET /pix`,
 *   `PUT|GET /pix/{e2eid}/devolucao/{id}`, `PUT|GET /webhook/{chave}`, each body checked
 *   against the standard's schemas (`schemas.ts`) and its rules (`bank.ts`), refusals answered
 *   with the standard's problem documents;
 * - callbacks: `POST {webhookUrl}/pix` with `{"pix": [...]}` when a Pix arrives or a devolution
 *   becomes final;
 * - test controls under `/_control` (same TLS, no token), see `controls` below.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import type { ValidateFunction } from 'ajv';
import type { Problema } from '../../../shared/providers/api-pix/wire.ts';
import { Bank, pixJson, problem, type Result, type StoredPix } from './bank.ts';
import { makeTestPki, type PkiFiles, type TestPki, writePki } from './pki.ts';
import { type ApiPixSchemas, loadApiPixSchemas, violations } from './schemas.ts';

export interface LocalPspOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Where the PEM files are written (default a new temporary folder). */
  dataDir?: string;
  clientId?: string;
  /** Default a random one. */
  clientSecret?: string;
  /** The merchant's Pix key this PSP holds. */
  pixKey?: string;
  /**
   * The scopes this client may be granted (its contract with the PSP); default every scope of the
   * routes served: `cob.write cob.read pix.write pix.read webhook.write webhook.read`.
   */
  clientScopes?: string[];
  /** Lifetime of issued access tokens (default 3600 s; `/_control/token` changes it). */
  tokenTtlSeconds?: number;
  /** How long a devolution stays `EM_PROCESSAMENTO` (default 1 s). */
  devolutionSettleMs?: number;
  /** The BCB OpenAPI file (default: `findApiPixSpec()`). */
  specPath?: string;
  /** Certificates to serve with instead of a fresh set (a test's server from another CA). */
  pki?: TestPki;
  /** One line per request and callback; silent by default. */
  log?: (line: string) => void;
  /**
   * Each answer of the token endpoint and the API (not of `/_control`) as it leaves, for tests
   * that check them against the standard (`conformance.ts`).
   */
  onAnswer?: (answer: PspAnswer) => void;
}

/** An answer the PSP sent, with the request's method, path (`/v2/cob/…`, `/oauth/token`), query and headers. */
export interface PspAnswer {
  method: string;
  path: string;
  /** The request's query string, without `?`. */
  query: string;
  requestHeaders: IncomingHttpHeaders;
  requestBody: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

type PspMode = 'up' | 'down' | 'error5xx' | 'slow';

interface CallbackAttempt {
  url: string;
  body: { pix: Record<string, unknown>[] };
  status?: number;
  error?: string;
  at: string;
}

export interface LocalPsp {
  origin: string;
  /** The API Pix base URL, `https://127.0.0.1:<port>/v2`. */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  pixKey: string;
  pki: TestPki;
  files: PkiFiles;
  bank: Bank;
  /**
   * Counters the tests read (also `GET /_control/stats`): TCP connections, requests answered by
   * an outage (`/_control/mode`), token requests and API requests that got past it, and the
   * devolution reads `/_control/devolucao-reads` failed.
   */
  stats: {
    connections: number;
    outages: number;
    tokenRequests: number;
    apiRequests: number;
    devolucaoReadsFailed: number;
  };
  callbacks: CallbackAttempt[];
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Every scope of the routes served (the standard's OAuth2 scopes). */
const ALL_API_PIX_SCOPES = [
  'cob.write',
  'cob.read',
  'pix.write',
  'pix.read',
  'webhook.write',
  'webhook.read',
] as const;

/**
 * The scope the standard's `security` requires for an API route (below `/v2`); undefined for
 * `/infracoes`, this PSP's extension outside the standard, which takes any valid token.
 */
function requiredScope(method: string, apiPath: string): string | undefined {
  const access = method === 'GET' ? 'read' : 'write';
  if (/^\/cob(\/|$)/.test(apiPath)) return `cob.${access}`;
  if (/^\/pix(\/|$)/.test(apiPath)) return `pix.${access}`;
  if (/^\/webhook(\/|$)/.test(apiPath)) return `webhook.${access}`;
  return undefined;
}
const CALLBACK_ATTEMPTS = 3;
const CALLBACK_TIMEOUT_MS = 5000;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new BodyTooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const isProblem = body !== null && typeof body === 'object' && 'type' in body && 'status' in body;
  res
    .writeHead(status, {
      'content-type': isProblem ? 'application/problem+json' : 'application/json',
      ...headers,
    })
    .end(body === undefined ? '' : JSON.stringify(body));
};

const sendResult = <T>(
  res: ServerResponse,
  result: Result<T>,
  render: (value: T) => unknown,
  okStatus = 200,
) => {
  if (result.ok) sendJson(res, result.status ?? okStatus, render(result.value));
  else sendJson(res, result.problem.status, result.problem);
};

/** A JSON object body, or the route's problem for anything else. */
function jsonObject(
  text: string,
  onInvalid: () => { ok: false; problem: Problema },
): Result<Record<string, unknown>> {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown> };
  } catch {}
  return onInvalid();
}

/** Parses and schema-checks a body; refusals are the route's problem type with `violacoes`. */
function validBody(
  text: string,
  validate: ValidateFunction,
  root: string,
  refuse: { tipo: string; title: string },
): Result<Record<string, unknown>> {
  const parsed = jsonObject(text, () =>
    problem(400, refuse.tipo, refuse.title, 'O corpo da requisição não é um objeto JSON.'),
  );
  if (!parsed.ok) return parsed;
  if (validate(parsed.value)) return parsed;
  return problem(
    400,
    refuse.tipo,
    refuse.title,
    'A requisição não respeita o schema.',
    violations(root, validate.errors),
  );
}

const COB_REFUSED = { tipo: 'CobOperacaoInvalida', title: 'Cobrança inválida.' };

/** A path parameter the standard's schema refuses (a txid, a devolution id): the route's problem naming it. */
const badParameter = (
  refuse: { tipo: string; title: string },
  propriedade: string,
  valor: string,
): Problema =>
  problem(400, refuse.tipo, refuse.title, undefined, [
    { razao: 'Não respeita o schema.', propriedade, valor },
  ]).problem;
const DEVOLUCAO_REFUSED = { tipo: 'PixDevolucaoInvalida', title: 'Devolução inválida.' };
const WEBHOOK_REFUSED = { tipo: 'WebhookOperacaoInvalida', title: 'Webhook inválido.' };

/** `GET /pix`'s query, checked as the standard says (`PixConsultaInvalida`). */
function pixQuery(
  params: URLSearchParams,
  schemas: ApiPixSchemas,
): Result<{
  inicio: string;
  fim: string;
  cpf?: string;
  cnpj?: string;
  txid?: string;
  page: number;
  size: number;
}> {
  const violacoes: { razao: string; propriedade: string }[] = [];
  const get = (name: string) => params.get(name) ?? undefined;
  const [inicio, fim, cpf, cnpj, txid] = ['inicio', 'fim', 'cpf', 'cnpj', 'txid'].map(get);
  const check = (name: string, value: string | undefined, validate: ValidateFunction, required = false) => {
    if (value === undefined) {
      if (required) violacoes.push({ razao: 'Parâmetro obrigatório.', propriedade: name });
    } else if (!validate(value)) violacoes.push({ razao: 'Não respeita o schema.', propriedade: name });
  };
  check('inicio', inicio, schemas.dateTime, true);
  check('fim', fim, schemas.dateTime, true);
  check('cpf', cpf, schemas.cpf);
  check('cnpj', cnpj, schemas.cnpj);
  check('txid', txid, schemas.txid);
  if (inicio && fim && Date.parse(fim) < Date.parse(inicio))
    violacoes.push({ razao: 'fim é anterior a inicio.', propriedade: 'fim' });
  if (cpf !== undefined && cnpj !== undefined)
    violacoes.push({ razao: 'cpf e cnpj não podem ser usados juntos.', propriedade: 'cnpj' });
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = get(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      violacoes.push({ razao: `Deve ser um inteiro entre ${min} e ${max}.`, propriedade: name });
    return value;
  };
  const page = integer('paginacao.paginaAtual', 0, 0, Number.MAX_SAFE_INTEGER);
  const size = integer('paginacao.itensPorPagina', 100, 1, 1000);
  if (violacoes.length > 0)
    return problem(400, 'PixConsultaInvalida', 'Consulta inválida.', undefined, violacoes);
  return {
    ok: true,
    value: {
      inicio: inicio as string,
      fim: fim as string,
      ...(cpf !== undefined && { cpf }),
      ...(cnpj !== undefined && { cnpj }),
      ...(txid !== undefined && { txid }),
      page,
      size,
    },
  };
}

interface RouteContext {
  query: URLSearchParams;
  /** The raw body (API routes parse it against their schema). */
  body: string;
  /** The parsed body of a control. */
  json: Record<string, unknown>;
  res: ServerResponse;
}

type Route = [method: string, path: RegExp, handle: (params: string[], context: RouteContext) => void];

/** Runs the first route of this method whose pattern matches; false when none does. */
function dispatch(routes: Route[], method: string, path: string, context: RouteContext): boolean {
  for (const [routeMethod, pattern, handle] of routes) {
    const match = routeMethod === method ? pattern.exec(path) : null;
    if (match) {
      handle(match.slice(1).map(decodeURIComponent), context);
      return true;
    }
  }
  return false;
}

/** Calls `onAnswer` with what `res` sends (status, headers given to `writeHead`, body given to `end`). */
function observe(
  res: ServerResponse,
  request: Pick<PspAnswer, 'method' | 'path' | 'query' | 'requestHeaders' | 'requestBody'>,
  onAnswer: (answer: PspAnswer) => void,
) {
  let headers: Record<string, string> = {};
  const writeHead = res.writeHead.bind(res) as (
    status: number,
    headers?: Record<string, string>,
  ) => ServerResponse;
  const end = res.end.bind(res) as (body?: string) => ServerResponse;
  Object.assign(res, {
    writeHead: (status: number, given: Record<string, string> = {}) => {
      headers = Object.fromEntries(Object.entries(given).map(([name, value]) => [name.toLowerCase(), value]));
      return writeHead(status, given);
    },
    end: (body?: string) => {
      onAnswer({ ...request, status: res.statusCode, headers, body: body ?? '' });
      return end(body);
    },
  });
}

/** A response whose answer never leaves: the request is carried out, then the connection drops. */
function losingAnswer(res: ServerResponse): ServerResponse {
  const lost = {
    writeHead: () => lost,
    end: () => {
      res.socket?.destroy();
      return lost;
    },
  };
  return lost as unknown as ServerResponse;
}

export async function startLocalPsp(options: LocalPspOptions = {}): Promise<LocalPsp> {
  const host = options.host ?? '127.0.0.1';
  const clientId = options.clientId ?? 'local-psp-client';
  const clientSecret = options.clientSecret ?? randomBytes(18).toString('base64url');
  const pixKey = options.pixKey ?? 'loja@example.com';
  const log = options.log ?? (() => {});
  const schemas = loadApiPixSchemas(options.specPath);
  const pki = options.pki ?? makeTestPki(clientId);
  // A folder of our own making goes with the server; a given one is the caller's.
  const ownDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'local-psp-')) : undefined;
  const files = writePki(options.dataDir ?? (ownDir as string), pki);

  let tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
  /** Whether token answers carry `expires_in` (RFC 6749 §5.1: recommended, not required). */
  let tokenExpiresIn = true;
  const clientScopes = new Set<string>(options.clientScopes ?? ALL_API_PIX_SCOPES);
  const tokens = new Map<string, { expiresAt: number; scopes: Set<string> }>();
  let mode: { mode: PspMode; delayMs: number; remaining?: number; status?: number; retryAfter?: string } = {
    mode: 'up',
    delayMs: 0,
  };
  /** Whether `GET /pix` takes the payer filter (`cpf`/`cnpj`); off, such a query is refused (403). */
  /** `GET /pix` by payer: applied and echoed; refused (403); or silently ignored (neither applied nor echoed). */
  let payerFilter: boolean | 'ignored' = true;
  /** Whether the token endpoint refuses the client's (otherwise right) credentials. */
  let clientRefused = false;
  /** Whether a created cob's answer carries `pixCopiaECola`, `location` and `loc` (all optional in CobGerada). */
  const cobFields = { pixCopiaECola: true, location: true, loc: true };
  /**
   * Answers valid in the standard but unlike this PSP's usual ones: Pix times in another UTC
   * offset (RFC 3339 allows any), a `CONCLUIDA` cob read without its optional `pix` list, and a
   * devolution's `valor` with a leading zero (`"010.00"` matches `\d{1,10}\.\d{2}`).
   */
  const answerFormat = { horarioOffsetMinutes: 0, cobPixList: true, devolucaoValorPadded: false };
  const formatPix = (pix: StoredPix): Record<string, unknown> => {
    const json = pixJson(pix);
    const offset = answerFormat.horarioOffsetMinutes;
    if (offset === 0) return json;
    const local = new Date(Date.parse(pix.horario) + offset * 60_000).toISOString().slice(0, -1);
    const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
    const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
    return { ...json, horario: `${local}${offset < 0 ? '-' : '+'}${hours}:${minutes}` };
  };
  /** The next `remaining` reads of a devolution answer `status` (a PSP whose reads lag or fail). */
  let devolucaoReads: { status: 404 | 503; remaining: number } = { status: 503, remaining: 0 };
  /** The next `remaining` API requests matching `method` and `pathPrefix` are done, but their answer is lost. */
  let lostAnswers: { method?: string; pathPrefix: string; path?: string; remaining: number } = {
    pathPrefix: '/',
    remaining: 0,
  };
  /** The next `remaining` API requests matching `method` and `path` are refused (400 CobOperacaoInvalida), doing nothing. */
  let refusals: { method?: string; path: string; remaining: number } = { path: '', remaining: 0 };
  let refusalsNameViolations = true;
  const stats = { connections: 0, outages: 0, tokenRequests: 0, apiRequests: 0, devolucaoReadsFailed: 0 };
  const callbacks: CallbackAttempt[] = [];
  const stopping = new AbortController();

  const notify = async (pix: StoredPix) => {
    const hook = bank.webhooks.get(pix.chave);
    if (!hook) return;
    const url = `${hook.webhookUrl.replace(/\/+$/, '')}/pix`;
    const body = { pix: [pixJson(pix)] };
    for (let attempt = 1; attempt <= CALLBACK_ATTEMPTS && !stopping.signal.aborted; attempt++) {
      const record: CallbackAttempt = { url, body, at: new Date().toISOString() };
      callbacks.push(record);
      try {
        const answer = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(CALLBACK_TIMEOUT_MS)]),
        });
        record.status = answer.status;
        log(`callback ${url} → ${answer.status}`);
        if (answer.ok) return;
      } catch (error) {
        record.error = error instanceof Error ? error.message : String(error);
        log(`callback ${url} failed: ${record.error}`);
      }
      await sleep(500 * attempt, undefined, { signal: stopping.signal }).catch(() => {});
    }
  };

  const server: Server = createServer({
    key: pki.server.key,
    cert: pki.server.cert,
    ca: pki.ca.cert,
    requestCert: true,
    rejectUnauthorized: true,
  });
  server.on('connection', () => {
    stats.connections++;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `https://${host}:${port}`;

  const bank = new Bank({
    pixKey,
    locationHost: `${host}:${port}`,
    ispb: '99999999',
    merchantName: 'Loja Local',
    merchantCity: 'Sao Paulo',
    devolutionSettleMs: options.devolutionSettleMs ?? 1000,
    onNotify: (pix) => void notify(pix),
  });

  /** `/oauth/token`: client credentials by HTTP Basic, from the certificate issued to that client. */
  const issueToken = (req: IncomingMessage, res: ServerResponse, body: string) => {
    stats.tokenRequests++;
    // RFC 6749 §5.2: a client refused after authenticating with `Authorization` gets 401 with
    // the challenge of its scheme.
    const oauthError = (status: number, error: string, description: string) =>
      sendJson(
        res,
        status,
        { error, error_description: description },
        status === 401 ? { 'www-authenticate': 'Basic realm="oauth"' } : {},
      );
    const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
    const [id, secret] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':')
      .map((part) => decodeURIComponent(part));
    if (scheme !== 'Basic' || id !== clientId || secret !== clientSecret || clientRefused)
      return oauthError(401, 'invalid_client', 'Client authentication failed.');
    const subject = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
    if (subject !== clientId)
      return oauthError(401, 'invalid_client', 'The client certificate was not issued to this client.');
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'client_credentials')
      return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported.');
    // RFC 6749 §3.3: the scopes asked for, or the client's default ones; beyond the client's,
    // `invalid_scope` (§5.2).
    const asked = form.get('scope')?.split(' ').filter(Boolean);
    const granted = new Set(asked?.length ? asked : clientScopes);
    const beyond = [...granted].filter((scope) => !clientScopes.has(scope));
    if (beyond.length > 0)
      return oauthError(400, 'invalid_scope', `Scopes not granted to this client: ${beyond.join(' ')}.`);
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, { expiresAt: Date.now() + tokenTtlSeconds * 1000, scopes: granted });
    sendJson(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      ...(tokenExpiresIn && { expires_in: tokenTtlSeconds }),
      scope: [...granted].join(' '),
    });
  };

  /** The scopes of the request's token, if it is one this PSP issued and it has not expired. */
  const authorized = (req: IncomingMessage): Set<string> | undefined => {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const token = match?.[1] ? tokens.get(match[1]) : undefined;
    return token !== undefined && Date.now() < token.expiresAt ? token.scopes : undefined;
  };

  const notFound = (res: ServerResponse, tipo: string, title: string) =>
    sendJson(res, 404, problem(404, tipo, title).problem);

  /** `GET /cob/{txid}`, also a control so a cob can be looked at without a token. */
  const showCob: Route[2] = ([txid = ''], { res }) => {
    const cob = bank.cobs.get(txid);
    if (!cob) return notFound(res, 'CobNaoEncontrado', 'Cobrança não encontrada.');
    sendJson(res, 200, bank.cobJson(cob));
  };

  /** The API Pix routes under `/v2`: `[method, path pattern, handler of the decoded path parameters]`. */
  const apiRoutes: Route[] = [
    [
      'GET',
      /^\/cob\/([^/]+)$/,
      ([txid = ''], { res }) => {
        const cob = bank.cobs.get(txid);
        if (!cob) return notFound(res, 'CobNaoEncontrado', 'Cobrança não encontrada.');
        const { pix, ...rest } = bank.cobJson(cob);
        sendJson(res, 200, answerFormat.cobPixList ? { ...rest, ...(pix !== undefined && { pix }) } : rest);
      },
    ],
    [
      'PUT',
      /^\/cob\/([^/]+)$/,
      ([txid = ''], { body, res }) => {
        if (!schemas.txid(txid)) return sendJson(res, 400, badParameter(COB_REFUSED, 'cob.txid', txid));
        const parsed = validBody(body, schemas.cobSolicitada, 'cob', COB_REFUSED);
        if (!parsed.ok) return sendJson(res, 400, parsed.problem);
        sendResult(res, bank.putCob(txid, parsed.value), (cob) => {
          const { pixCopiaECola, location, loc, ...rest } = bank.cobJson(cob);
          return {
            ...rest,
            ...(cobFields.pixCopiaECola && { pixCopiaECola }),
            ...(cobFields.location && { location }),
            ...(cobFields.loc && { loc }),
          };
        });
      },
    ],
    [
      'PATCH',
      /^\/cob\/([^/]+)$/,
      ([txid = ''], { body, res }) => {
        const parsed = validBody(body, schemas.cobRevisada, 'cob', COB_REFUSED);
        if (!parsed.ok) return sendJson(res, 400, parsed.problem);
        sendResult(res, bank.patchCob(txid, parsed.value), (cob) => bank.cobJson(cob));
      },
    ],
    [
      'PUT',
      /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      ([endToEndId = '', id = ''], { body, res }) => {
        if (!schemas.devolucaoId(id))
          return sendJson(res, 400, badParameter(DEVOLUCAO_REFUSED, 'devolucao.id', id));
        const parsed = validBody(body, schemas.devolucaoSolicitada, 'devolucao', DEVOLUCAO_REFUSED);
        if (!parsed.ok) return sendJson(res, 400, parsed.problem);
        const request = parsed.value as { valor: string; descricao?: string };
        const result = bank.requestDevolucao(endToEndId, id, request);
        // `violacoes` is optional in the standard's Problema: a PSP may refuse without naming the property.
        if (!result.ok && !refusalsNameViolations) delete result.problem.violacoes;
        sendResult(res, result, (devolucao) => devolucao);
      },
    ],
    [
      'GET',
      /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      ([endToEndId = '', id = ''], { res }) => {
        if (devolucaoReads.remaining > 0) {
          devolucaoReads.remaining--;
          stats.devolucaoReadsFailed++;
          if (devolucaoReads.status === 503)
            return sendJson(res, 503, problem(503, 'ServicoIndisponivel', 'Serviço indisponível.').problem);
          return notFound(res, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.');
        }
        const devolucao = bank.pix.get(endToEndId)?.devolucoes.find((d) => d.id === id);
        if (!devolucao) return notFound(res, 'PixDevolucaoNaoEncontrada', 'Devolução não encontrada.');
        sendJson(
          res,
          200,
          answerFormat.devolucaoValorPadded ? { ...devolucao, valor: `0${devolucao.valor}` } : devolucao,
        );
      },
    ],
    [
      'GET',
      /^\/pix\/([^/]+)$/,
      ([endToEndId = ''], { res }) => {
        const pix = bank.pix.get(endToEndId);
        if (!pix) return notFound(res, 'PixNaoEncontrado', 'Pix não encontrado.');
        sendJson(res, 200, formatPix(pix));
      },
    ],
    [
      'GET',
      /^\/pix$/,
      (_, { query, res }) => {
        const parsed = pixQuery(query, schemas);
        if (!parsed.ok) return sendJson(res, 400, parsed.problem);
        const { page, size, ...asked } = parsed.value;
        const { cpf: _cpf, cnpj: _cnpj, ...withoutPayer } = asked;
        const filter: typeof asked = payerFilter === 'ignored' ? withoutPayer : asked;
        if (payerFilter === false && (filter.cpf !== undefined || filter.cnpj !== undefined))
          return sendJson(
            res,
            403,
            problem(403, 'AcessoNegado', 'Acesso negado.', 'Consulta por pagador não disponível.').problem,
          );
        const all = bank.listPix(filter);
        sendJson(res, 200, {
          parametros: {
            ...filter,
            paginacao: {
              paginaAtual: page,
              itensPorPagina: size,
              quantidadeDePaginas: Math.max(1, Math.ceil(all.length / size)),
              quantidadeTotalDeItens: all.length,
            },
          },
          pix: all.slice(page * size, (page + 1) * size).map(formatPix),
        });
      },
    ],
    [
      // Not API Pix (which has no infractions): this PSP's extension through which the MED port
      // reads the DICT infraction reports against Pix received here, changed within a period.
      'GET',
      /^\/infracoes$/,
      (_, { query, res }) => {
        const inicio = query.get('inicio') ?? '';
        const fim = query.get('fim') ?? '';
        if (
          Number.isNaN(Date.parse(inicio)) ||
          Number.isNaN(Date.parse(fim)) ||
          Date.parse(fim) < Date.parse(inicio)
        )
          return sendJson(res, 400, problem(400, 'ConsultaInvalida', 'Período inválido.').problem);
        sendJson(res, 200, {
          ResponseTime: new Date().toISOString(),
          CorrelationId: randomBytes(16).toString('hex'),
          HasMoreElements: false,
          InfractionReports: bank.listInfractions(inicio, fim).map((i) => bank.infractionReport(i)),
        });
      },
    ],
    [
      'PUT',
      /^\/webhook\/([^/]+)$/,
      ([chave = ''], { body, res }) => {
        const parsed = validBody(body, schemas.webhookSolicitado, 'webhook', WEBHOOK_REFUSED);
        if (!parsed.ok) return sendJson(res, 400, parsed.problem);
        sendResult(res, bank.putWebhook(chave, String(parsed.value.webhookUrl)), () => undefined);
      },
    ],
    [
      'GET',
      /^\/webhook\/([^/]+)$/,
      ([chave = ''], { res }) => {
        const hook = bank.webhooks.get(chave);
        if (!hook) return notFound(res, 'WebhookNaoEncontrado', 'Webhook não encontrado.');
        sendJson(res, 200, hook);
      },
    ],
  ];

  const controlBody = (text: string): Result<Record<string, unknown>> =>
    text === ''
      ? { ok: true, value: {} }
      : jsonObject(text, () => problem(400, 'RequisicaoInvalida', 'JSON inválido.'));
  const badControl = (res: ServerResponse, detail: string) =>
    sendJson(res, 400, problem(400, 'RequisicaoInvalida', 'Controle inválido.', detail).problem);
  const optionalText = (body: Record<string, unknown>, name: string): Record<string, string> =>
    typeof body[name] === 'string' ? { [name]: body[name] } : {};

  /**
   * Test controls under `/_control` (see the README):
   * - `POST /cob/{txid}/pay` `{payerDocument?, payerName?, amount? (centavos), infoPagador?}`: a Pix arrives;
   *   refused (409) for a removed or `CONCLUIDA` cob or one past `calendario.expiracao`, as a real PSP
   *   does, unless the test opts in: `secondPayment: true` (a second Pix on a CONCLUIDA cob),
   *   `afterExpiry: true` (a late Pix), each playing a payer's bank that did not check;
   * - `POST /devolucao/{id}/fail` `{motivo?}` | `hold` | `complete`: steer a devolution, before or after it is requested;
   * - `POST /infraction` `{endToEndId, infractionType?, reportDetails?}`; `GET /infractions`;
   *   `POST /infraction/{id}/close` `{analysisResult: "AGREED"|"DISAGREED"}` | `/cancel`;
   * - `POST /mode` `{mode: "up"|"down"|"error5xx"|"slow", delayMs?, count?, status?, retryAfter?}`: with `count`,
   *   that many requests, then up; `error5xx` answers `status` (503, or 429) with `Retry-After: retryAfter` if given;
   * - `POST /token` `{expiresIn?, revoke?: true, sendExpiresIn?: boolean, refuseClient?: boolean}`:
   *   `refuseClient` revokes the tokens and answers the client's credentials `invalid_client` (401)
   *   until set false again (its secret or certificate expired at the PSP);
   * - `POST /payer-filter` `{supported: boolean | "ignored"}`: whether `GET /pix` answers a `cpf`/`cnpj`
   *   filter (false: 403; "ignored": lists as if it were not sent, and does not echo it in `parametros`);
   * - `POST /cob-fields` `{pixCopiaECola?: boolean, location?: boolean, loc?: boolean}`: whether `PUT /cob` answers carry them;
   * - `POST /answer-format` `{horarioOffsetMinutes?, cobPixList?, devolucaoValorPadded?}`: Pix times in
   *   another UTC offset, `GET /cob` without its `pix` list, a devolution's `valor` read with a leading zero;
   * - `POST /devolucao-reads` `{status: 404|503, count}`: the next `count` `GET …/devolucao/{id}` answer that;
   * - `POST /lose-answers` `{count, method?, pathPrefix?, path?}`: the next `count` API requests matching
   *   (`pathPrefix`, or exactly `path`, below `/v2`) are carried out, then the connection drops before the answer;
   * - `POST /violacoes` `{named: boolean}`: whether a refused devolution names the violated property
   *   (`violacoes`, optional in the standard; on by default);
   * - `POST /refuse` `{count, path, method?}`: the next `count` API requests to exactly `path` (below `/v2`)
   *   are refused with 400 `CobOperacaoInvalida` and change nothing (a PSP refusing for its own reasons);
   * - `GET /stats`, `GET /callbacks`, `GET /cob/{txid}`.
   */
  const controlRoutes: Route[] = [
    [
      'POST',
      /^\/cob\/([^/]+)\/pay$/,
      ([txid = ''], { json, res }) => {
        const { amount } = json;
        if (amount !== undefined && (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0))
          return badControl(res, 'amount must be a positive integer (centavos).');
        for (const flag of ['secondPayment', 'afterExpiry'] as const)
          if (json[flag] !== undefined && typeof json[flag] !== 'boolean')
            return badControl(res, `${flag} must be a boolean.`);
        const result = bank.pay(
          txid,
          {
            ...(amount !== undefined && { amount }),
            ...optionalText(json, 'payerDocument'),
            ...optionalText(json, 'payerName'),
            ...optionalText(json, 'infoPagador'),
          },
          { secondPayment: json.secondPayment === true, afterExpiry: json.afterExpiry === true },
        );
        sendResult(res, result, (pix) => ({ ...pixJson(pix), payer: pix.payer }));
      },
    ],
    [
      'POST',
      /^\/devolucao\/([^/]+)\/(fail|hold|complete)$/,
      ([id = '', action], { json, res }) => {
        const motivo = typeof json.motivo === 'string' ? json.motivo : undefined;
        const result = bank.steerDevolucao(id, action as 'fail' | 'hold' | 'complete', motivo);
        sendResult(res, result, (state) => ({ state }));
      },
    ],
    [
      'POST',
      /^\/infraction$/,
      (_, { json, res }) => {
        if (typeof json.endToEndId !== 'string') return badControl(res, 'endToEndId is required.');
        const result = bank.reportInfraction({
          endToEndId: json.endToEndId,
          ...optionalText(json, 'infractionType'),
          ...optionalText(json, 'reportDetails'),
        });
        sendResult(res, result, (infraction) => infraction);
      },
    ],
    ['GET', /^\/infractions$/, (_, { res }) => sendJson(res, 200, { infractions: bank.infractions })],
    [
      'POST',
      /^\/infraction\/([^/]+)\/(close|cancel)$/,
      ([id = '', action], { json, res }) => {
        const result = json.analysisResult;
        if (action === 'close' && result !== 'AGREED' && result !== 'DISAGREED')
          return badControl(res, 'analysisResult must be AGREED or DISAGREED.');
        const end =
          action === 'close'
            ? { status: 'CLOSED' as const, analysisResult: result as 'AGREED' | 'DISAGREED' }
            : { status: 'CANCELLED' as const };
        sendResult(res, bank.endInfraction(id, end), (infraction) => infraction);
      },
    ],
    [
      'POST',
      /^\/payer-filter$/,
      (_, { json, res }) => {
        if (typeof json.supported !== 'boolean' && json.supported !== 'ignored')
          return badControl(res, 'supported must be a boolean or "ignored".');
        payerFilter = json.supported;
        sendJson(res, 200, { supported: payerFilter });
      },
    ],
    [
      'POST',
      /^\/answer-format$/,
      (_, { json, res }) => {
        const { horarioOffsetMinutes: offset, cobPixList, devolucaoValorPadded } = json;
        if (offset !== undefined && (!Number.isInteger(offset) || Math.abs(offset as number) >= 24 * 60))
          return badControl(res, 'horarioOffsetMinutes must be an integer of minutes below a day.');
        for (const [name, value] of Object.entries({ cobPixList, devolucaoValorPadded }))
          if (value !== undefined && typeof value !== 'boolean')
            return badControl(res, `${name} must be a boolean.`);
        if (typeof offset === 'number') answerFormat.horarioOffsetMinutes = offset;
        if (typeof cobPixList === 'boolean') answerFormat.cobPixList = cobPixList;
        if (typeof devolucaoValorPadded === 'boolean')
          answerFormat.devolucaoValorPadded = devolucaoValorPadded;
        sendJson(res, 200, answerFormat);
      },
    ],
    [
      'POST',
      /^\/cob-fields$/,
      (_, { json, res }) => {
        for (const field of ['pixCopiaECola', 'location', 'loc'] as const) {
          const value = json[field];
          if (value !== undefined && typeof value !== 'boolean')
            return badControl(res, `${field} must be a boolean.`);
          if (typeof value === 'boolean') cobFields[field] = value;
        }
        sendJson(res, 200, cobFields);
      },
    ],
    [
      'POST',
      /^\/devolucao-reads$/,
      (_, { json, res }) => {
        const { status, count } = json;
        if ((status !== 404 && status !== 503) || typeof count !== 'number' || count < 0)
          return badControl(res, 'status must be 404 or 503, count a non-negative number.');
        devolucaoReads = { status, remaining: count };
        sendJson(res, 200, devolucaoReads);
      },
    ],
    [
      'POST',
      /^\/violacoes$/,
      (_, { json, res }) => {
        if (typeof json.named !== 'boolean') return badControl(res, 'named must be a boolean.');
        refusalsNameViolations = json.named;
        sendJson(res, 200, { named: refusalsNameViolations });
      },
    ],
    [
      'POST',
      /^\/refuse$/,
      (_, { json, res }) => {
        if (typeof json.count !== 'number' || json.count < 0 || typeof json.path !== 'string')
          return badControl(res, 'count (a non-negative number) and path are required.');
        refusals = {
          remaining: json.count,
          path: json.path,
          ...(typeof json.method === 'string' && { method: json.method }),
        };
        sendJson(res, 200, refusals);
      },
    ],
    [
      'POST',
      /^\/lose-answers$/,
      (_, { json, res }) => {
        if (typeof json.count !== 'number' || json.count < 0)
          return badControl(res, 'count must be a non-negative number.');
        lostAnswers = {
          remaining: json.count,
          pathPrefix: typeof json.pathPrefix === 'string' ? json.pathPrefix : '/',
          ...(typeof json.path === 'string' && { path: json.path }),
          ...(typeof json.method === 'string' && { method: json.method }),
        };
        sendJson(res, 200, lostAnswers);
      },
    ],
    [
      'POST',
      /^\/mode$/,
      (_, { json, res }) => {
        const next = json.mode;
        if (next !== 'up' && next !== 'down' && next !== 'error5xx' && next !== 'slow')
          return badControl(res, 'mode must be up, down, error5xx or slow.');
        const { status, retryAfter } = json;
        if (status !== undefined && status !== 429 && status !== 503)
          return badControl(res, 'status must be 429 or 503.');
        if (retryAfter !== undefined && typeof retryAfter !== 'string')
          return badControl(res, 'retryAfter must be a string (seconds or an HTTP date).');
        mode = {
          mode: next,
          delayMs: typeof json.delayMs === 'number' ? json.delayMs : 3000,
          ...(typeof json.count === 'number' && { remaining: json.count }),
          ...(status !== undefined && { status }),
          ...(retryAfter !== undefined && { retryAfter }),
        };
        sendJson(res, 200, mode);
      },
    ],
    [
      'POST',
      /^\/token$/,
      (_, { json, res }) => {
        if (typeof json.expiresIn === 'number' && json.expiresIn > 0) tokenTtlSeconds = json.expiresIn;
        if (json.revoke === true) tokens.clear();
        if (typeof json.refuseClient === 'boolean') {
          clientRefused = json.refuseClient;
          if (clientRefused) tokens.clear();
        }
        if (typeof json.sendExpiresIn === 'boolean') tokenExpiresIn = json.sendExpiresIn;
        sendJson(res, 200, { expiresIn: tokenTtlSeconds });
      },
    ],
    ['GET', /^\/stats$/, (_, { res }) => sendJson(res, 200, { ...stats, callbacks: callbacks.length })],
    ['GET', /^\/callbacks$/, (_, { res }) => sendJson(res, 200, { callbacks })],
    ['GET', /^\/cob\/([^/]+)$/, showCob],
  ];

  /** An outage applies to the API and the token endpoint, never to the controls that end it. */
  const outage = async (res: ServerResponse): Promise<boolean> => {
    const current = mode;
    if (current.mode === 'up') return false;
    if (current.remaining !== undefined && --current.remaining <= 0) mode = { mode: 'up', delayMs: 0 };
    stats.outages++;
    if (current.mode === 'down') {
      res.socket?.destroy();
      return true;
    }
    if (current.mode === 'error5xx') {
      const headers: Record<string, string> =
        current.retryAfter === undefined ? {} : { 'retry-after': current.retryAfter };
      // The file has no TipoErro for 429 (RFC 6585): RFC 7807's about:blank, the status saying it all.
      const body =
        current.status === 429
          ? { type: 'about:blank', title: 'Too Many Requests', status: 429 }
          : problem(current.status ?? 503, 'ServicoIndisponivel', 'Serviço indisponível.').problem;
      sendJson(res, current.status ?? 503, body, headers);
      return true;
    }
    await sleep(current.delayMs, undefined, { signal: stopping.signal }).catch(() => {});
    return false;
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const method = req.method ?? 'GET';
      const request = {
        method,
        path: url.pathname,
        query: url.search.slice(1),
        requestHeaders: req.headers,
        requestBody: '',
      };
      if (options.onAnswer && !url.pathname.startsWith('/_control/')) observe(res, request, options.onAnswer);
      try {
        const body = await readBody(req);
        request.requestBody = body;
        log(`${method} ${url.pathname}`);
        if (url.pathname.startsWith('/_control/')) {
          const json = controlBody(body);
          if (!json.ok) return sendJson(res, 400, json.problem);
          const context = { query: url.searchParams, body, json: json.value, res };
          if (!dispatch(controlRoutes, method, url.pathname.slice('/_control'.length), context))
            notFound(res, 'NaoEncontrado', 'Controle não encontrado.');
          return;
        }
        if (await outage(res)) return;
        if (url.pathname === '/oauth/token' && method === 'POST') return issueToken(req, res, body);
        if (!url.pathname.startsWith('/v2/'))
          return sendJson(res, 404, problem(404, 'NaoEncontrado', 'Não encontrado.').problem);
        stats.apiRequests++;
        const scopes = authorized(req);
        if (!scopes)
          return sendJson(
            res,
            401,
            problem(401, 'AcessoNegado', 'Token de acesso ausente, inválido ou expirado.').problem,
            {
              'www-authenticate': 'Bearer error="invalid_token"',
            },
          );
        const apiPath = url.pathname.slice('/v2'.length);
        // The standard's `security` per operation; its answer is the general AcessoNegado (403).
        const scope = requiredScope(method, apiPath);
        if (scope !== undefined && !scopes.has(scope))
          return sendJson(
            res,
            403,
            problem(
              403,
              'AcessoNegado',
              'Acesso Negado',
              `Requisição de participante autenticado que viola alguma regra de autorização: o token não tem o escopo ${scope}.`,
            ).problem,
            { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
          );
        const lose =
          lostAnswers.remaining > 0 &&
          apiPath.startsWith(lostAnswers.pathPrefix) &&
          (lostAnswers.path === undefined || lostAnswers.path === apiPath) &&
          (lostAnswers.method === undefined || lostAnswers.method === method);
        if (lose) lostAnswers.remaining--;
        if (refusals.remaining > 0 && refusals.path === apiPath && (refusals.method ?? method) === method) {
          refusals.remaining--;
          return sendJson(
            res,
            400,
            problem(400, COB_REFUSED.tipo, COB_REFUSED.title, 'Refused by the test control /_control/refuse.')
              .problem,
          );
        }
        const context = { query: url.searchParams, body, json: {}, res: lose ? losingAnswer(res) : res };
        if (!dispatch(apiRoutes, method, apiPath, context)) notFound(res, 'NaoEncontrado', 'Não encontrado.');
      } catch (error) {
        if (error instanceof BodyTooLarge)
          return sendJson(res, 413, problem(413, 'RequisicaoInvalida', 'Corpo grande demais.').problem);
        log(`error ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent)
          sendJson(res, 500, problem(500, 'ErroInternoDoServidor', 'Erro interno.').problem);
      }
    })();
  });

  return {
    origin,
    baseUrl: `${origin}/v2`,
    tokenUrl: `${origin}/oauth/token`,
    clientId,
    clientSecret,
    pixKey,
    pki,
    files,
    bank,
    stats,
    callbacks,
    async stop() {
      stopping.abort();
      bank.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}
