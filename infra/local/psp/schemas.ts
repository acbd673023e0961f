/**
 * The local PSP validates every request body against the central bank's own API Pix 2.9.0
 * schemas, read from the published OpenAPI file (ajv over the `components`), so a body the real
 * standard rejects is rejected here too. Two repairs make the published file compile as the
 * standard means it:
 * - a few `pattern`s are written as JavaScript literals (`/^\d{11}$/` for a CPF): the slashes go;
 * - patterns are written unanchored (`[a-zA-Z0-9]{26,35}` for a txid), which JSON Schema reads as
 *   "contains"; the standard means the whole value, so each is anchored.
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

function repairPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(repairPatterns);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'pattern' && typeof value === 'string' ? repairPattern(value) : repairPatterns(value),
    ]),
  );
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
  const document = parse(readFileSync(specPath, 'utf8')) as { components: Record<string, unknown> };
  // OpenAPI 3.0 adds keywords JSON Schema does not know (`example`, `readOnly`, `x-…`): not strict.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: repairPatterns(document.components) });
  const schema = (name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
    if (!validate) throw new Error(`API Pix schema ${name} not found in ${specPath}`);
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
  };
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
