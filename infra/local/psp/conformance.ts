/**
 * Whether an answer a PSP sent is one the central bank's API Pix 2.9.0 file allows, as a PSP's
 * certification would check it: the status is listed for the operation (or is one of the file's
 * general errors), the media type is the listed one, the body validates against the listed
 * schema (`schemas.ts`), and an error is RFC 7807 `application/problem+json` whose `type` is
 * `https://pix.bcb.gov.br/api/v2/error/<TipoErro>` with a `TipoErro` the file lists, answered
 * with the HTTP status the file names for it. The token endpoint is RFC 6749's (§5.1, §5.2): the
 * file names its URL and flow, not its answers. The tests record every answer of a live-mode
 * lifecycle (`onAnswer`) and check each here, so a PSP answer the standard would not give
 * fails them.
 */

import type { ValidateFunction } from 'ajv';
import { PROBLEM_TYPE_BASE } from '../../../shared/providers/api-pix/wire.ts';
import type { ApiPixSchemas } from './schemas.ts';
import type { PspAnswer } from './server.ts';

/** The file's general errors, which any operation may answer though it does not list them. */
const GENERAL_ERRORS = [
  'RequisicaoInvalida',
  'AcessoNegado',
  'NaoEncontrado',
  'PermanentementeRemovido',
  'ErroInternoDoServidor',
  'ServicoIndisponivel',
  'IndisponibilidadePorTempoEsgotado',
];

const mediaType = (headers: Record<string, string>): string =>
  (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const parsed = (body: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
};

const schemaErrors = (validate: ValidateFunction, value: unknown): string[] =>
  validate(value)
    ? []
    : (validate.errors ?? []).map(
        (error) => `${error.instancePath || '(body)'} ${error.message ?? 'invalid'}`,
      );

/** The file's path template for an API path (below the base URL): the one with the most literal segments. */
export function pathTemplate(schemas: ApiPixSchemas, apiPath: string): string | undefined {
  const segments = apiPath.split('/');
  const matches = schemas.paths.filter((template) => {
    const parts = template.split('/');
    return (
      parts.length === segments.length &&
      parts.every((part, i) => /^\{.+\}$/.test(part) || part === segments[i])
    );
  });
  const literal = (template: string) => template.split('/').filter((part) => !part.startsWith('{')).length;
  return matches.sort((a, b) => literal(b) - literal(a))[0];
}

/** RFC 6749 §5.1 (a token) and §5.2 (an error) answers of the token endpoint. */
function tokenAnswerDrifts(answer: PspAnswer): string[] {
  const drifts: string[] = [];
  if (mediaType(answer.headers) !== 'application/json')
    drifts.push(`content-type ${answer.headers['content-type']}, RFC 6749 says application/json`);
  const body = parsed(answer.body);
  const json = (body.ok ? body.value : undefined) as Record<string, unknown> | undefined;
  if (answer.status === 200) {
    if (typeof json?.access_token !== 'string') drifts.push('access_token missing (RFC 6749 §5.1)');
    if (typeof json?.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer')
      drifts.push('token_type is not Bearer (RFC 6749 §5.1, RFC 6750)');
    if (json?.expires_in !== undefined && !(Number.isInteger(json.expires_in) && Number(json.expires_in) > 0))
      drifts.push('expires_in is not a positive integer of seconds (RFC 6749 §5.1)');
    return drifts;
  }
  const codes = [
    'invalid_request',
    'invalid_client',
    'invalid_grant',
    'unauthorized_client',
    'unsupported_grant_type',
    'invalid_scope',
  ];
  if (answer.status >= 500) return drifts;
  if (typeof json?.error !== 'string' || !codes.includes(json.error))
    drifts.push(`error ${JSON.stringify(json?.error)} is not one of RFC 6749 §5.2's`);
  if (![400, 401].includes(answer.status))
    drifts.push(`status ${answer.status}: RFC 6749 §5.2 answers 400 or 401`);
  if (answer.status === 401 && !answer.headers['www-authenticate'])
    drifts.push('401 without WWW-Authenticate (RFC 6749 §5.2)');
  return drifts;
}

/** An error body: `Problema`, problem+json, a listed type answered with its status. */
function problemDrifts(schemas: ApiPixSchemas, answer: PspAnswer, template: string): string[] {
  const drifts: string[] = [];
  if (mediaType(answer.headers) !== 'application/problem+json')
    drifts.push(`content-type ${answer.headers['content-type']}, RFC 7807 says application/problem+json`);
  const body = parsed(answer.body);
  if (!body.ok) return [...drifts, 'the error body is not JSON'];
  drifts.push(...schemaErrors(schemas.problema, body.value).map((e) => `Problema: ${e}`));
  const problem = body.value as { type?: unknown; status?: unknown };
  if (problem.status !== answer.status)
    drifts.push(`status ${problem.status} in the body, ${answer.status} on the wire`);
  const type = typeof problem.type === 'string' ? problem.type : '';
  const tipo = type.startsWith(PROBLEM_TYPE_BASE) ? type.slice(PROBLEM_TYPE_BASE.length) : undefined;
  const known = tipo === undefined ? undefined : schemas.errorTypes.get(tipo);
  if (tipo === undefined || known === undefined) {
    drifts.push(`type ${type} is not ${PROBLEM_TYPE_BASE}<TipoErro> with a TipoErro the file lists`);
    return drifts;
  }
  // The file lists no 401 and no TipoErro for it: a refused bearer token is RFC 6750's (§3.1),
  // with its WWW-Authenticate; its body is the file's nearest type, AcessoNegado.
  if (answer.status === 401) {
    if (tipo !== 'AcessoNegado') drifts.push(`401 with type ${tipo}, not AcessoNegado`);
    if (!/^Bearer\b/.test(answer.headers['www-authenticate'] ?? ''))
      drifts.push('401 without WWW-Authenticate: Bearer (RFC 6750 §3)');
    return drifts;
  }
  if (known.statuses.length > 0 && !known.statuses.includes(answer.status))
    drifts.push(
      `type ${tipo} is answered with ${known.statuses.join(' or ')} in the file, not ${answer.status}`,
    );
  // A general error, or one the file names for this operation (then also for a status the
  // operation's `responses` leave out: `GET /pix` lists no 400, yet PixConsultaInvalida is its).
  const operation = `${answer.method} ${template}`;
  if (!GENERAL_ERRORS.includes(tipo) && known.endpoints.length > 0 && !known.endpoints.includes(operation))
    drifts.push(`type ${tipo} is for ${known.endpoints.join(', ')} in the file, not ${operation}`);
  return drifts;
}

/**
 * What is wrong with an answer the PSP sent, as sentences (none: the file allows it). `basePath`
 * is the API Pix base URL's path (`/v2`), `tokenPath` the token endpoint's.
 */
export function apiPixAnswerDrifts(
  schemas: ApiPixSchemas,
  answer: PspAnswer,
  { basePath, tokenPath }: { basePath: string; tokenPath: string },
): string[] {
  if (answer.path === tokenPath) return tokenAnswerDrifts(answer);
  if (!answer.path.startsWith(`${basePath}/`))
    return [`${answer.path} is neither below ${basePath} nor the token endpoint`];
  const template = pathTemplate(schemas, answer.path.slice(basePath.length));
  if (template === undefined) return [`${answer.path} is not a path of the file`];
  const declared = schemas.answer(template, answer.method, answer.status);
  if (answer.status >= 400) {
    const drifts = problemDrifts(schemas, answer, template);
    const listedSchema = declared?.[mediaType(answer.headers)];
    if (listedSchema)
      drifts.push(
        ...schemaErrors(listedSchema, parsed(answer.body).ok ? JSON.parse(answer.body) : undefined),
      );
    return drifts;
  }
  if (declared === undefined)
    return [`${answer.method} ${template} does not answer ${answer.status} in the file`];
  const types = Object.keys(declared);
  if (types.length === 0)
    return answer.body === ''
      ? []
      : [`${answer.method} ${template} ${answer.status} has no content in the file`];
  const validate = declared[mediaType(answer.headers)];
  if (validate === undefined)
    return [`content-type ${answer.headers['content-type']}, the file says ${types.join(' or ')}`];
  const body = parsed(answer.body);
  if (!body.ok) return ['the body is not JSON'];
  return validate === null ? [] : schemaErrors(validate, body.value);
}

/** A query or path value as a number or boolean schema reads it: `"0"` is 0 for `paginacao.paginaAtual`. */
const typed = (value: string): unknown => {
  try {
    const json: unknown = JSON.parse(value);
    return typeof json === 'number' || typeof json === 'boolean' ? json : value;
  } catch {
    return value;
  }
};

/** RFC 3339's `date-time` always carries its offset (`Z` or `±hh:mm`); JSON Schema's format alone lets `+0300` through. */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * What is wrong with a request a client sent to the PSP (none: the file asks for it so): an
 * operation of the file, each path and query parameter valid by its schema (required ones
 * present, no others), times in RFC 3339 with their offset, a bearer token, `Accept` taking JSON
 * and problem+json, `Content-Type: application/json` with a body and no body on a GET. Request
 * bodies are the PSP's own business: it refuses any the schemas refuse.
 */
export function apiPixRequestDrifts(
  schemas: ApiPixSchemas,
  request: Pick<PspAnswer, 'method' | 'path' | 'query' | 'requestHeaders'>,
  basePath: string,
): string[] {
  const apiPath = request.path.slice(basePath.length);
  const template = pathTemplate(schemas, apiPath);
  const parameters = template === undefined ? undefined : schemas.parameters(template, request.method);
  if (template === undefined || parameters === undefined)
    return [`${request.method} ${apiPath} is not an operation of the file`];
  const drifts: string[] = [];
  const segments = apiPath.split('/');
  const pathValues = new Map(
    template
      .split('/')
      .flatMap((part, i) =>
        /^\{.+\}$/.test(part) ? [[part.slice(1, -1), decodeURIComponent(segments[i] ?? '')]] : [],
      ),
  );
  const query = new URLSearchParams(request.query);
  for (const name of new Set(query.keys()))
    if (!parameters.some((p) => p.in === 'query' && p.name === name))
      drifts.push(`query parameter ${name} is not one of ${request.method} ${template}'s`);
  for (const parameter of parameters) {
    const value = parameter.in === 'path' ? pathValues.get(parameter.name) : query.get(parameter.name);
    if (value === undefined || value === null) {
      if (parameter.required) drifts.push(`${parameter.in} parameter ${parameter.name} is missing`);
      continue;
    }
    if (!parameter.validate(value) && !parameter.validate(typed(value)))
      drifts.push(
        `${parameter.in} parameter ${parameter.name}=${value}: ${parameter.validate.errors?.[0]?.message}`,
      );
    if ((parameter.name === 'inicio' || parameter.name === 'fim') && !RFC_3339.test(value))
      drifts.push(`${parameter.name}=${value} is not RFC 3339 with its offset`);
  }
  const headers = request.requestHeaders;
  if (!/^Bearer \S+$/.test(String(headers.authorization ?? '')))
    drifts.push('no Authorization: Bearer <token>');
  const accept = String(headers.accept ?? '');
  for (const type of ['application/json', 'application/problem+json'])
    if (!accept.includes(type)) drifts.push(`Accept ${accept || '(none)'} does not take ${type}`);
  const hasBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
  if (request.method === 'GET' && hasBody) drifts.push('a GET with a body');
  if (hasBody && !/^application\/json\b/.test(String(headers['content-type'] ?? '')))
    drifts.push(`a body sent as ${headers['content-type'] ?? '(no Content-Type)'}, not application/json`);
  return drifts;
}
