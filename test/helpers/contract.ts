/**
 * The contract test: every response the integration suite receives from the API is checked
 * against the OpenAPI document's schema for its route and status (ajv, JSON Schema 2020-12).
 * Response objects are closed (`additionalProperties: false`), so a field the document does not
 * declare fails. A body that is not JSON (page, image, JWS) is checked for its content type only.
 */

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { buildOpenApiDocument } from '../../shared/http/openapi/document.ts';
import { matchRoute } from '../../shared/routes.ts';

const document = buildOpenApiDocument();
const DOCUMENT_ID = 'openapi.json';

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its default export arrives wrapped once more under ESM.
const addFormats = ((addFormatsPlugin as { default?: unknown }).default ?? addFormatsPlugin) as (
  a: Ajv2020,
) => void;
addFormats(ajv);
ajv.addSchema(document as object, DOCUMENT_ID);

const validators = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function validatorFor(responsePointer: string): ValidateFunction {
  const ref = `${DOCUMENT_ID}#${responsePointer}/${pointer('content', 'application/json', 'schema')}`;
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

const envelopeValidator = ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/ErrorEnvelope` });

/**
 * A request header for a test that deliberately gets a body the document does not describe (a
 * fabricated stored response): that response is checked for its content type only.
 */
export const BODY_UNCHECKED = { 'x-test-body-unchecked': 'true' } as const;

type Declared = { content?: Record<string, unknown>; $ref?: string };

/** What is wrong with one response, or undefined when it is what the document says. */
export function contractViolation(
  method: string,
  url: URL,
  status: number,
  contentType: string | null,
  text: string,
  bodyChecked = true,
): string | undefined {
  const match = matchRoute(method, url.pathname);
  const where = `${method} ${url.pathname} → ${status}`;
  const baseType = (contentType ?? '').split(';')[0]?.trim() ?? '';
  if (!match) {
    // An unknown route answers the 404 envelope.
    if (baseType !== 'application/json') return `${where} (no route): content type ${contentType}`;
    return envelopeValidator(JSON.parse(text))
      ? undefined
      : `${where} (no route): ${ajv.errorsText(envelopeValidator.errors)}`;
  }
  const { route } = match;
  const lowerMethod = method.toLowerCase();
  const operation = (document.paths[route.path] as Record<string, { responses: Record<string, Declared> }>)[
    lowerMethod
  ];
  const listed = operation?.responses[String(status)];
  if (!listed) return `${where}: route ${route.id} has no response ${status} in the OpenAPI document`;
  // A shared error response is a reference to `components.responses`.
  const responsePointer = listed.$ref
    ? listed.$ref.slice(1)
    : `/${pointer('paths', route.path, lowerMethod, 'responses', String(status))}`;
  const declared = listed.$ref
    ? (document.components.responses as Record<string, Declared>)[listed.$ref.split('/').at(-1) ?? '']
    : listed;
  if (!declared) return `${where}: route ${route.id} refers to a missing ${listed.$ref}`;
  if (!declared.content) return text === '' ? undefined : `${where}: route ${route.id} declares no body`;
  const mediaTypes = Object.keys(declared.content);
  const mediaType = mediaTypes.find((type) => type.split(';')[0] === baseType);
  if (mediaType === undefined)
    return `${where}: route ${route.id} answered ${contentType}, the document says ${mediaTypes.join(' or ')}`;
  if (mediaType !== 'application/json' || !bodyChecked) return undefined;
  const validate = validatorFor(responsePointer);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${where}: route ${route.id} answered a body that is not JSON`;
  }
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${where}: route ${route.id} breaks the OpenAPI document: ${errors.join('; ')}; body ${text.slice(0, 400)}`;
}
