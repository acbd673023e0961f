/**
 * The local PSP validates every request body against the central bank's own API Pix 2.9.0
 * schemas, read from the published OpenAPI file (ajv over the `components`), so a body the real
 * standard rejects is rejected here too; the tests check its answers and callbacks against the
 * same file (`conformance.ts`). Repairs make the published file read as the standard means it:
 * - a few `pattern`s are written as JavaScript literals (`/^\d{11}$/` for a CPF): the slashes go;
 * - patterns are written unanchored (`[a-zA-Z0-9]{26,35}` for a txid), which JSON Schema reads as
 *   "contains"; the standard means the whole value, so each is anchored;
 * - a `location` is `format: uri`, yet the standard writes it without a scheme (every example:
 *   `pix.example.com/qr/v2/…`, as the BR Code carries it): its `format` goes, its 77 characters stay;
 * - `PixConsultados` (`GET /pix`) requires `cobs`, a property it does not have (a copy of
 *   `CobsConsultadas`; the file's own example `getPix1` has none): only `parametros` stays required;
 * - `WebhookCompleto` (`GET /webhook/{chave}`) requires `cnpj`, described as "Filtro pelo CNPJ do
 *   devedor" (a copy of `GET /cob`'s filter; the file's own example `webhookResponse1` has none):
 *   not required.
 */

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const SPEC_FILE = 'shared/reference/bcb-api-pix-2.9.0.openapi.yaml';

/**
 * The BCB file is read, never vendored: `API_PIX_SPEC` when set, else the `shared/reference`
 * folder beside the repository or beside any folder above it (a clone anywhere under the
 * workspace finds it), else the workspace's own (`/work/shared/reference`).
 */
function findApiPixSpec(): string {
  const fromEnv = process.env.API_PIX_SPEC;
  if (fromEnv) return fromEnv;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, SPEC_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  const workspace = join('/work', SPEC_FILE);
  if (existsSync(workspace)) return workspace;
  throw new Error(`The API Pix OpenAPI file was not found: set API_PIX_SPEC to ${SPEC_FILE}'s path`);
}

const SPEC_ID = 'https://pix.bcb.gov.br/api/v2/openapi.json';

/** `/^\d{11}$/` → `^\d{11}$`; `[a-z]{3}` → `^(?:[a-z]{3})$`. */
export function repairPattern(pattern: string): string {
  const literal = /^\/(.*)\/$/.exec(pattern);
  const source = literal ? (literal[1] ?? '') : pattern;
  const start = source.startsWith('^') ? source : `^(?:${source}`;
  const anchored = source.startsWith('^') ? start : `${start})`;
  return anchored.endsWith('$') ? anchored : `${anchored}$`;
}

/** The pattern and `location` repairs, everywhere below `node`. */
function repairPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(repairPatterns);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (key === 'pattern' && typeof value === 'string') return [key, repairPattern(value)];
      if (key === 'location' && value !== null && typeof value === 'object' && 'format' in value) {
        const { format: _uri, ...schemeless } = value as Record<string, unknown>;
        return [key, repairPatterns(schemeless)];
      }
      return [key, repairPatterns(value)];
    }),
  );
}

/** The file's `components` repaired (see above). */
function repairComponents(components: Record<string, unknown>): Record<string, unknown> {
  const repaired = repairPatterns(components) as { schemas: Record<string, { required?: string[] }> };
  const without = (schema: string, property: string) => {
    const target = repaired.schemas[schema];
    if (target?.required) target.required = target.required.filter((name) => name !== property);
  };
  without('PixConsultados', 'cobs');
  without('WebhookCompleto', 'cnpj');
  return repaired;
}

/** The schemas the local PSP checks requests with. */
export interface ApiPixSchemas {
  cobSolicitada: ValidateFunction;
  cobRevisada: ValidateFunction;
  devolucaoSolicitada: ValidateFunction;
  webhookSolicitado: ValidateFunction;
  txid: ValidateFunction;
  endToEndId: ValidateFunction;
  devolucaoId: ValidateFunction;
  dateTime: ValidateFunction;
  cpf: ValidateFunction;
  cnpj: ValidateFunction;
  /** The `callbacks` body a PSP posts to `{webhookUrl}/pix` (`WebhookPixBody`). */
  webhookPix: ValidateFunction;
  /** `Problema` (RFC 7807), the body of every error. */
  problema: ValidateFunction;
  /**
   * What the file says `method` on `template` (one of its `paths`, `/cob/{txid}`) answers with
   * `status`: the schema of each media type (`null` for an answer with no content), or undefined
   * when the file lists no such answer.
   */
  answer(
    template: string,
    method: string,
    status: number,
  ): Record<string, ValidateFunction | null> | undefined;
  /**
   * The parameters of `method` on `template` (the path's and the operation's), each with its
   * schema; undefined when the file has no such operation.
   */
  parameters(
    template: string,
    method: string,
  ): { name: string; in: string; required: boolean; validate: ValidateFunction }[] | undefined;
  /** The file's path templates (`/cob/{txid}`, `/pix`, …). */
  paths: string[];
  /**
   * The error types (`TipoErro`) the file's "Tratamento de erros" lists, by name.
   */
  errorTypes: Map<string, ErrorType>;
}

/** An error type of the file: the HTTP statuses and the operations (`GET /pix`) it names for it. */
export interface ErrorType {
  statuses: number[];
  endpoints: string[];
}

const loaded = new Map<string, ApiPixSchemas>();

/** Compiled once per file and process: several PSPs in one test run share them. */
export function loadApiPixSchemas(specPath = findApiPixSpec()): ApiPixSchemas {
  const known = loaded.get(specPath);
  if (known) return known;
  const schemas = compileApiPixSchemas(specPath);
  loaded.set(specPath, schemas);
  return schemas;
}

function compileApiPixSchemas(specPath: string): ApiPixSchemas {
  const document = parse(readFileSync(specPath, 'utf8')) as {
    info: { description: string };
    components: Record<string, unknown> & {
      responses: Record<string, OpenApiResponse>;
      parameters: Record<string, OpenApiParameter>;
    };
    paths: Record<string, Record<string, OpenApiOperation> & { parameters?: OpenApiParameter[] }>;
  };
  // OpenAPI 3.0 adds keywords JSON Schema does not know (`example`, `readOnly`, `x-…`): not strict.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: repairComponents(document.components) });
  const schema = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
    if (!validate) throw new Error(`API Pix schema ${name} not found in ${specPath}`);
    return validate;
  };
  // A schema inline in `paths` refers to `#/components/…` of the file: made absolute, compiled once.
  const compiledInline = new Map<unknown, ValidateFunction>();
  const compiled = (inline: unknown): ValidateFunction => {
    let validate = compiledInline.get(inline);
    if (!validate) {
      validate = ajv.compile(
        JSON.parse(JSON.stringify(repairPatterns(inline)), (key, value) =>
          key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${SPEC_ID}${value}` : value,
        ),
      );
      compiledInline.set(inline, validate);
    }
    return validate;
  };
  // The CPF and CNPJ filters of GET /pix are inline in the path; these are the same rules.
  const field = (name: string, property: string): ValidateFunction =>
    ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${name}/properties/${property}` });
  return {
    cobSolicitada: schema('CobSolicitada'),
    cobRevisada: schema('CobRevisada'),
    devolucaoSolicitada: schema('DevolucaoSolicitada'),
    webhookSolicitado: schema('WebhookSolicitado'),
    txid: schema('TxId'),
    endToEndId: schema('EndToEndId'),
    devolucaoId: schema('DevolucaoId'),
    dateTime: schema('Inicio'),
    cpf: field('CPF', 'cpf'),
    cnpj: field('CNPJ', 'cnpj'),
    webhookPix: ajv.compile({
      $ref: `${SPEC_ID}#/components/requestBodies/WebhookPixBody/content/application~1json/schema`,
    }),
    problema: schema('Problema'),
    paths: Object.keys(document.paths),
    errorTypes: errorTypesOf(document.info.description),
    parameters(template, method) {
      const path = document.paths[template];
      const operation = path?.[method.toLowerCase()] as OpenApiOperation | undefined;
      if (!path || !operation?.responses) return undefined;
      return [...(path.parameters ?? []), ...(operation.parameters ?? [])].map((declared) => {
        const parameter =
          '$ref' in declared
            ? (document.components.parameters[declared.$ref.split('/').at(-1) ?? ''] as Exclude<
                OpenApiParameter,
                { $ref: string }
              >)
            : declared;
        return {
          name: parameter.name,
          in: parameter.in,
          required: parameter.required === true,
          validate: compiled(parameter.schema ?? {}),
        };
      });
    },
    answer(template, method, status) {
      const declared = document.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)];
      if (declared === undefined) return undefined;
      const response =
        '$ref' in declared
          ? document.components.responses[String(declared.$ref).split('/').at(-1) ?? '']
          : declared;
      if (response === undefined) return undefined;
      return Object.fromEntries(
        Object.entries(response.content ?? {}).map(([mediaType, { schema }]) => [
          mediaType,
          schema === undefined ? null : compiled(schema),
        ]),
      );
    },
  };
}

/**
 * The "### `CobNaoEncontrado`" headings, each with the statuses of its "HTTP Status Code" line and
 * the operations of its "endpoints" line (`[GET|PATCH] /cob/{txid}` → `GET /cob/{txid}`, `PATCH …`).
 */
function errorTypesOf(description: string): Map<string, ErrorType> {
  const types = new Map<string, ErrorType>();
  for (const section of description.split(/^\s*### /m).slice(1)) {
    const name = /^`(\w+)`/.exec(section)?.[1];
    if (name === undefined) continue;
    const line = (label: string) => new RegExp(`__${label}__:(.*)`).exec(section)?.[1] ?? '';
    const statuses = [
      ...line('HTTP Status Code')
        .replaceAll(/\(https?:[^)]*\)/g, '')
        .matchAll(/\b[1-5]\d\d\b/g),
    ].map(Number);
    const endpoints = [...line('endpoints?').matchAll(/`\[?([A-Z|]+)\]? (\/[^`]*)`/g)].flatMap(
      ([, methods = '', path]) => methods.split('|').map((method) => `${method} ${path}`),
    );
    types.set(name, { statuses, endpoints });
  }
  return types;
}

type OpenApiParameter = { name: string; in: string; required?: boolean; schema?: unknown } | { $ref: string };

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  responses?: Record<string, OpenApiResponse | { $ref: string }>;
}

interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}

/** The standard's `violacoes` for ajv's errors, properties named from the body's root (`cob.valor.original`). */
export function violations(
  root: string,
  errors: ErrorObject[] | null | undefined,
): { razao: string; propriedade: string }[] {
  return (errors ?? []).map((error) => ({
    razao: `${error.message ?? 'não respeita o schema'}${error.params && 'allowedValues' in error.params ? `: ${JSON.stringify(error.params.allowedValues)}` : ''}`,
    propriedade: [root, ...error.instancePath.split('/').filter(Boolean)].join('.'),
  }));
}
