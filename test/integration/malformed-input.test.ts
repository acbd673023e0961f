/**
 * Every operation of the OpenAPI document, sent malformed input as a careless or hostile client
 * would: wrong types, out-of-range and oversized values, broken JSON, odd content types, strange
 * ids and query values, oversized credentials. Never a 5xx, and every answer is one the document
 * declares for the route, body included (every fetch goes through the contract check,
 * `test/helpers/contract-fetch.ts`).
 *
 * Real ids (a paid charge, a pending one, a MED case) let the input reach past the lookups. The
 * account has no rate limit to speak of, so 429s do not stop the input short. `POST
 * /v1/auth/logout` is left out: it would deny-list the token the other operations use.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/http/openapi/document.ts';
import { newAccount, newKey, newMember } from '../helpers/accounts.ts';
import { newCharge } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { openMed, paidCharge } from '../helpers/med.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

type Schema = Record<string, any>;
const document = buildOpenApiDocument() as unknown as Schema;

const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref
    ? resolve(
        schema.$ref
          .split('/')
          .slice(1)
          .reduce((node: Schema, key: string) => node[key], document),
      )
    : schema;

/** A plausible value of `schema` (required properties only for objects). */
function sample(schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(schema) ?? {};
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf || s.oneOf) return sample((s.anyOf ?? s.oneOf)[0], depth);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties)
    return Object.fromEntries(
      Object.entries(s.properties ?? {})
        .filter(([name]) => depth < 4 && (s.required ?? []).includes(name))
        .map(([name, property]) => [name, sample(property as Schema, depth + 1)]),
    );
  if (type === 'array') return [sample(s.items, depth + 1)];
  if (type === 'integer' || type === 'number') return s.minimum ?? 100;
  if (type === 'boolean') return true;
  if (s.format === 'email') return 'someone@example.com';
  if (s.format === 'date-time') return '2026-11-01T00:00:00Z';
  return 'x'.repeat(Math.max(1, s.minLength ?? 1));
}

/** Values put in place of each body property in turn. */
const WRONG_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  2 ** 53 + 1,
  '',
  'x'.repeat(100_000),
  '\u0000🙂',
  [],
  {},
  { $ne: 1 },
  '2026-02-30T25:61:00Z',
];
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
/** Whole bodies, and the content type they are sent with (`null`: none). */
const RAW_BODIES: [string | Buffer, string | null][] = [
  ['', 'application/json'],
  ['null', 'application/json'],
  ['[]', 'application/json'],
  ['{', 'application/json'],
  [deepArray(5000), 'application/json'],
  ['{"amount":1}', 'text/plain'],
  ['amount=1', 'application/x-www-form-urlencoded'],
  ['{}', null],
  [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), 'application/json'],
  ['{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}', 'application/json'],
  [JSON.stringify({ pad: 'x'.repeat(2_000_000) }), 'application/json'],
];
const QUERY_VALUES = [
  '',
  'x',
  '-1',
  '1e999',
  '99999999999999999999',
  'a'.repeat(5000),
  '%00',
  '%F0%9F%99%82',
];
const ID_VALUES = ['x', '%00', 'a'.repeat(3000), '%F0%9F%99%82', 'ch_01936f4e-0000-7000-8000-000000000000'];

interface Operation {
  method: string;
  path: string;
  operation: Schema;
}
const operations: Operation[] = Object.entries(document.paths as Schema).flatMap(([path, item]) =>
  Object.entries(item as Schema)
    .filter(([, operation]) => typeof operation === 'object' && operation?.responses)
    .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);

let apikey: string;
/** A key of an account whose per-key limit is 0 a minute: its every request is over it. */
let limitedKey: string;
let token: string;
let ids: { paid: string; pending: string; medCase: string };
let hookUrl: string;

beforeAll(async () => {
  const account = await newAccount({ rateLimitPerMinute: 10_000_000 });
  apikey = await newKey(account.id);
  limitedKey = await newKey((await newAccount({ rateLimitPerMinute: 0 })).id);
  token = (await newMember('OWNER', account.id)).token;
  const paid = await paidCharge(apikey);
  const disputedCharge = await paidCharge(apikey);
  const opened = await openMed(apikey, disputedCharge);
  expect(opened.status).toBe(201);
  ids = { paid, pending: (await newCharge(apikey)).id, medCase: opened.body.id };
  // Endpoints the input registers get their deliveries here rather than failing in the background.
  hookUrl = (await receiverPool().start()).url;
});

function credentials(operation: Schema): Record<string, string> {
  const security = JSON.stringify(operation.security ?? document.security ?? []);
  if (security.includes('dashboardToken')) return { authorization: `Bearer ${token}` };
  if (security.includes('apiKey')) return { apikey };
  return {};
}

/** The real id a path parameter gets: a pending charge to pay or cancel, a paid one, the MED case, or one no route knows. */
function realId(path: string, name: string): string {
  if (name === 'evidence_id') return 'ev_x';
  if (path.includes('/med/') || path.includes('/infractions')) return ids.medCase;
  if (path.includes('/sandbox/charges/') || path.endsWith('/cancel')) return ids.pending;
  if (name === 'id' && !path.includes('/api-keys') && !path.includes('/webhooks/')) return ids.paid;
  return 'x';
}

const answers5xx: string[] = [];
/** 4xx envelopes whose `message` or a `details` message is not a sentence (README, "Errors"). */
const unpunctuated: string[] = [];
const isSentence = (text: unknown) => typeof text === 'string' && /[.?!]$/.test(text);

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: { json: unknown } | { raw: string | Buffer; contentType: string | null } | undefined,
  what: string,
): Promise<void> {
  const sent: Record<string, string> = { ...headers };
  let payload: string | Buffer | undefined;
  if (body && 'json' in body) {
    payload = JSON.stringify(body.json);
    sent['content-type'] = 'application/json';
  } else if (body) {
    payload = body.raw;
    if (body.contentType) sent['content-type'] = body.contentType;
  }
  const response = await fetch(`${testBaseUrl}${path}`, {
    method,
    headers: sent,
    body: payload,
    redirect: 'manual',
  });
  const text = await response.text();
  if (response.status >= 500)
    answers5xx.push(`${method} ${path.slice(0, 120)} (${what}) → ${response.status} ${text.slice(0, 200)}`);
  const error =
    response.status < 500 && /json/.test(response.headers.get('content-type') ?? '')
      ? JSON.parse(text).error
      : undefined;
  if (
    error !== undefined &&
    !(
      isSentence(error.message) &&
      (error.details ?? []).every((d: { message: unknown }) => isSentence(d.message))
    )
  )
    unpunctuated.push(`${method} ${path.slice(0, 120)} (${what}) → ${text.slice(0, 300)}`);
}

describe.each(operations.filter(({ path }) => path !== '/v1/auth/logout'))(
  '$method $path',
  ({ method, path, operation }) => {
    it('answers malformed input with a declared 4xx, never a 5xx, each message a sentence', {
      timeout: 120_000,
    }, async () => {
      answers5xx.length = 0;
      unpunctuated.length = 0;
      const parameters = ((operation.parameters ?? []) as Schema[]).map((p) => resolve(p) as Schema);
      const pathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name as string);
      const fill = (values: Record<string, string>) =>
        path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = values[name] ?? realId(path, name);
          return value.includes('%') ? value : encodeURIComponent(value);
        });
      const headers = (): Record<string, string> => ({
        ...credentials(operation),
        ...(operation.parameters?.some((p: Schema) => JSON.stringify(p).includes('IdempotencyKey')) && {
          'idempotency-key': `malformed-${crypto.randomUUID()}`,
        }),
      });
      const bodySchema = resolve(operation.requestBody?.content?.['application/json']?.schema);
      const baseBody = bodySchema && {
        ...(sample(bodySchema) as Record<string, unknown>),
        ...(path === '/v1/webhooks/endpoints' && { url: hookUrl }),
      };
      const realPath = fill({});

      for (const name of pathNames)
        for (const value of ID_VALUES)
          await send(
            method,
            fill({ [name]: value }),
            headers(),
            baseBody && { json: baseBody },
            `${name}=${value.slice(0, 20)}`,
          );
      for (const query of parameters.filter((p) => p.in === 'query'))
        for (const value of QUERY_VALUES)
          await send(
            method,
            `${realPath}?${query.name}=${value}&${query.name}=1`,
            headers(),
            undefined,
            `?${query.name}`,
          );

      if (method !== 'GET') {
        for (const [raw, contentType] of RAW_BODIES)
          await send(
            method,
            realPath,
            headers(),
            { raw, contentType },
            `raw body ${String(raw).slice(0, 20)}`,
          );
        const properties = Object.entries((bodySchema?.properties ?? {}) as Record<string, Schema>);
        for (const [name] of [...properties, ['unknown_field']])
          for (const value of WRONG_VALUES)
            await send(
              method,
              realPath,
              headers(),
              { json: { ...baseBody, [name as string]: value } },
              `${name}=${JSON.stringify(value).slice(0, 20)}`,
            );
        // One level down: each property of an object property, its siblings plausible.
        for (const [name, property] of properties) {
          const objectSchema = resolve(
            ((resolve(property)?.anyOf ?? resolve(property)?.oneOf ?? [property]) as Schema[]).find(
              (s) => resolve(s)?.properties,
            ),
          );
          if (!objectSchema?.properties) continue;
          const whole = Object.fromEntries(
            Object.entries(objectSchema.properties as Record<string, Schema>).map(([n, s]) => [n, sample(s)]),
          );
          for (const inner of Object.keys(whole))
            for (const value of WRONG_VALUES)
              await send(
                method,
                realPath,
                headers(),
                { json: { ...baseBody, [name]: { ...whole, [inner]: value } } },
                `${name}.${inner}`,
              );
        }
      }

      await send(
        method,
        realPath,
        { ...headers(), apikey: `ak_test_${'x'.repeat(5000)}` },
        undefined,
        'long apikey',
      );
      await send(
        method,
        realPath,
        { ...headers(), authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
        undefined,
        'alg none',
      );
      if (method === 'POST')
        await send(
          method,
          realPath,
          { ...headers(), 'idempotency-key': 'k'.repeat(10_000) },
          baseBody && { json: baseBody },
          'long key',
        );
      if (path === '/v1/sandbox/acquirer')
        await send(method, realPath, headers(), { json: { status: 'up' } }, 'acquirer back up');

      expect(answers5xx).toEqual([]);
      expect(unpunctuated).toEqual([]);
    });
  },
);

/**
 * The codes every authenticated operation shares, asserted on each (aliases included), not only
 * on the routes their own tests drive: 401 without credentials, 400 `invalid_request` naming a
 * query parameter it does not read, 400 `invalid_json` for a body that is not JSON (on a GET or
 * DELETE too: API Gateway passes their body on, and the edge reads it to refuse it), and on the
 * merchant's (`apikey`) routes 429 `rate_limited` with its headers past the key's limit.
 */
describe.each(
  // Collected before `beforeAll`: the credentials' values are not known yet, their kind is.
  operations.filter(
    ({ operation, path }) => Object.keys(credentials(operation)).length > 0 && path !== '/v1/auth/logout',
  ),
)('$method $path', ({ method, path, operation }) => {
  it('answers 401 unauthorized without credentials, 400 invalid_request for an unknown query parameter, 400 invalid_json for a broken body, 429 rate_limited past the limit', async () => {
    const realPath = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(realId(path, name)));
    const call = { method, headers: credentials(operation) };

    expectError(await api(realPath, { method }), 401, 'authentication_error', 'unauthorized');

    const unknown = await api(`${realPath}?zz_unknown=1`, call);
    expectError(unknown, 400, 'invalid_request_error', 'invalid_request');
    expect(unknown.body.error.param).toBe('zz_unknown');

    expectError(
      await api(realPath, {
        ...call,
        rawBody: '{',
        headers: { ...call.headers, 'idempotency-key': `broken-${crypto.randomUUID()}` },
      }),
      400,
      'invalid_request_error',
      'invalid_json',
    );

    if (!('apikey' in call.headers)) return;
    const limited = await api(realPath, { method, headers: { apikey: limitedKey } });
    expectError(limited, 429, 'rate_limit_error', 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-limit-minute')).toBe('0');
    expect(limited.headers.get('x-ratelimit-remaining-minute')).toBe('0');
  });
});

/**
 * An unexpected failure on every operation (the test runtime's `x-fault-inject:
 * unexpected-error`, raised once the request is authenticated and read): 500 `api_error`
 * `internal_error` in the envelope, its detail never shown.
 */
describe.each(operations)('$method $path', ({ method, path, operation }) => {
  it('answers 500 internal_error for an unexpected failure, its detail hidden', async () => {
    const realPath = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(realId(path, name)));
    const reply = await api(realPath, {
      method,
      headers: { ...credentials(operation), 'x-fault-inject': 'unexpected-error' },
      // `{}` is what a route that reads no body accepts; one that needs a body gets it.
      ...(method !== 'GET' && { body: {} }),
    });
    expectError(reply, 500, 'api_error', 'internal_error');
    expect(reply.body.error.message).toBe('An unexpected error occurred.');
    expect(JSON.stringify(reply.body)).not.toContain('cbt_never_shown');
  });
});

/**
 * What a 400 says, in the service's own words: every problem of the request in `details` (each
 * unknown key, not only the first valibot meets), the field a misspelt key was meant to be, the
 * schema library's wording ("Invalid type: Expected string but received 1") never shown, and a
 * `details` entry without the "Invalid <param>: " lead its `param` already says.
 */
describe('validation messages', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    api(path, {
      apikey,
      body,
      headers: { 'idempotency-key': `msg-${crypto.randomUUID()}`, ...headers },
    });
  const error = async (reply: Promise<{ status: number; body: any }>) => {
    const { status, body } = await reply;
    expect(status).toBe(400);
    const { code, param, message, details } = body.error;
    return { code, param, message, details };
  };

  it('lists every unknown key and names the field a misspelt one was meant to be', async () => {
    expect(
      await error(post('/v1/charges', { ammount: 1050, payment_method: 'pix', foo: 1, expiresIn: 600 })),
    ).toEqual({
      code: 'invalid_amount',
      param: 'amount',
      message: 'amount is required. Received unknown parameter ammount: did you mean amount?',
      details: [
        { param: 'amount', message: 'amount is required.' },
        { param: 'ammount', message: 'Unknown parameter: did you mean amount?' },
        { param: 'foo', message: 'Unknown parameter.' },
        { param: 'expiresIn', message: 'Unknown parameter: did you mean expires_in?' },
      ],
    });
    expect(
      await error(
        post('/v1/charges', { amount: 1050, payment_method: 'pix', customer: { documnet: '1', nmae: 'x' } }),
      ),
    ).toEqual({
      code: 'invalid_request',
      param: 'customer.documnet',
      message: 'Invalid customer.documnet: Unknown parameter: did you mean customer.document?',
      details: [
        { param: 'customer.documnet', message: 'Unknown parameter: did you mean customer.document?' },
        { param: 'customer.nmae', message: 'Unknown parameter: did you mean customer.name?' },
      ],
    });
    expect(
      await error(
        api('/v1/payments', {
          apikey,
          body: { amount: 100, payment_methods: ['PIX'], idempotency_key: 'k-12345678' },
        }),
      ),
    ).toMatchObject({
      param: 'paymentMethods',
      message:
        'paymentMethods is required. Received unknown parameter payment_methods: did you mean paymentMethods?',
      details: [
        { param: 'paymentMethods', message: 'paymentMethods is required.' },
        { param: 'idempotencyKey', message: 'idempotencyKey is required.' },
        { param: 'payment_methods', message: 'Unknown parameter: did you mean paymentMethods?' },
        { param: 'idempotency_key', message: 'Unknown parameter: did you mean idempotencyKey?' },
      ],
    });
  });

  it("says what a value must be in the service's words, not the schema library's", async () => {
    expect(
      await error(
        post('/v1/charges', { amount: 1050, payment_method: 'pix', customer: 'João', currency: 986 }),
      ),
    ).toEqual({
      code: 'invalid_request',
      param: 'currency',
      message: 'Invalid currency: Must be a string.',
      details: [
        { param: 'currency', message: 'Must be a string.' },
        { param: 'customer', message: 'Must be a JSON object.' },
      ],
    });
    expect(await error(api('/v1/charges?customer_id=', { apikey }))).toMatchObject({
      param: 'customer_id',
      message: 'Invalid customer_id: Must not be empty.',
    });
    expect(await error(api('/v1/auth/login', { body: { email: 1, password: 2 } }))).toMatchObject({
      message: 'Invalid email: Must be a string.',
      details: [
        { param: 'email', message: 'Must be a string.' },
        { param: 'password', message: 'Must be a string.' },
      ],
    });
    // -1 is an integer: the bound is what is wrong, and the message gives both ends.
    expect(await error(api('/v1/charges?limit=-1', { apikey }))).toMatchObject({
      param: 'limit',
      message: 'Invalid limit: Must be an integer from 1 to 100.',
    });
    expect(await error(api('/v1/webhooks/deliveries?offset=5000', { apikey }))).toMatchObject({
      param: 'offset',
      message: 'Invalid offset: Must be an integer from 0 to 1000.',
    });
    // The same date message on every list (the MED list said "must be an ISO 8601 date").
    expect(await error(api('/v1/med/cases?created_after=31/12/2025', { apikey }))).toMatchObject({
      param: 'created_after',
      message:
        'Invalid created_after: Must be an ISO 8601 date (2026-05-01) or date-time (2026-05-01T13:45:00Z).',
    });
  });

  it('names the unknown event names', async () => {
    expect(
      await error(
        post('/v1/webhooks/endpoints', {
          url: hookUrl,
          events: ['payment.completed', 'payment.paid', 'foo.bar', 'payment.paid'],
        }),
      ),
    ).toMatchObject({
      param: 'events',
      details: [
        {
          param: 'events',
          message: 'Unknown event name "payment.paid", "foo.bar": see GET /v1/webhooks/event-catalog.',
        },
      ],
    });
    // Many unknown names: five named, the rest counted.
    const many = Array.from({ length: 1000 }, (_, n) => `no.such.event${n}`);
    expect(await error(post('/v1/webhooks/endpoints', { url: hookUrl, events: many }))).toMatchObject({
      message:
        'Invalid events: Unknown event name "no.such.event0", "no.such.event1", "no.such.event2", "no.such.event3", "no.such.event4", 995 more: see GET /v1/webhooks/event-catalog.',
    });
  });

  it('lists 20 unknown keys of a body that has thousands, and counts the rest', async () => {
    const body: Record<string, unknown> = { amount: 1050, payment_method: 'pix' };
    for (let n = 0; n < 5000; n++) body[`extra_${n}`] = n;
    const { param, details } = await error(post('/v1/charges', body));
    expect(param).toBe('extra_0');
    expect(details).toHaveLength(21);
    expect(details[19]).toEqual({ param: 'extra_19', message: 'Unknown parameter.' });
    // The count is of the body's keys, not of one field's.
    expect(details[20]).toEqual({ param: 'body', message: '4980 more unknown parameters.' });
  });

  it('keeps "Invalid <param>: " out of a rule\'s details entry, whose param says it', async () => {
    const webhookUrl = await error(
      api('/v1/payments', {
        apikey,
        body: {
          amount: 100,
          paymentMethods: ['PIX'],
          webhookUrl: 'example.com/hook',
          idempotencyKey: `msg-${crypto.randomUUID()}`,
        },
      }),
    );
    expect(webhookUrl).toMatchObject({
      param: 'webhookUrl',
      message:
        'Invalid webhookUrl: Must be an absolute http(s) URL, written out, with no spaces or control characters.',
      details: [
        {
          param: 'webhookUrl',
          message: 'Must be an absolute http(s) URL, written out, with no spaces or control characters.',
        },
      ],
    });
  });

  it('names no param for a rule no one field breaks, and the field a one-field rule is about', async () => {
    // No field to blame: no `param`; the details entry keeps the spec's {param, message} with
    // the part of the request the rule is over, or both bounds of a range.
    const wholeOf = (message: string, ...params: string[]) => ({
      code: 'invalid_request',
      param: undefined,
      message,
      details: params.map((param) => ({ param, message })),
    });
    const wholeBody = (message: string) => wholeOf(message, 'body');
    // "Send at least one of …" ("body" as the error's param before).
    expect(
      await error(api(`/v1/webhooks/endpoints/we_${'0'.repeat(24)}`, { apikey, method: 'PATCH', body: {} })),
    ).toEqual(wholeBody('Send at least one of url, events, status.'));
    expect(await error(api('/v1/sandbox/acquirer', { apikey, body: {} }))).toEqual(
      wholeBody('Send at least one of status, payouts.'),
    );
    // Bounds the wrong way round: either may be the wrong one (`param` named one of them before).
    const after = 'created_after=2026-01-02T00:00:00Z&created_before=2026-01-01T00:00:00Z';
    for (const list of ['/v1/charges', '/v1/med/cases'])
      expect(await error(api(`${list}?${after}`, { apikey }))).toEqual(
        wholeOf('created_after must not be after created_before.', 'created_after', 'created_before'),
      );
    expect(await error(api('/v1/payments?startDate=2026-02-01&endDate=2026-01-01', { apikey }))).toEqual(
      wholeOf('startDate must not be after endDate.', 'startDate', 'endDate'),
    );
    // A body that is not a JSON object, or not JSON at all, names no field either.
    expect(await error(api('/v1/webhooks/endpoints', { apikey, rawBody: '[]' }))).toEqual({
      code: 'invalid_request',
      param: undefined,
      message: 'The request body must be a JSON object.',
      details: undefined,
    });
    expect(await error(api('/v1/webhooks/endpoints', { apikey, rawBody: '{"url":' }))).toEqual({
      code: 'invalid_json',
      param: undefined,
      message: 'The request body is not valid JSON.',
      details: undefined,
    });
    // "X only with Y": the error is on X.
    expect(
      await error(
        api(`/v1/payments/${ids.paid}/refund`, {
          apikey,
          body: {
            idempotencyKey: `msg-${crypto.randomUUID()}`,
            strategy: 'devolution',
            passFeeToTenant: true,
          },
        }),
      ),
    ).toMatchObject({
      param: 'passFeeToTenant',
      message: 'Invalid passFeeToTenant: Applies to cashout refunds only, not to strategy devolution.',
    });
    // customer.name is "Required when expected_payer_tax_id is set" (Part 1): the missing field.
    expect(
      await error(
        post('/v1/charges', { amount: 100, payment_method: 'pix', expected_payer_tax_id: '52998224725' }),
      ),
    ).toEqual({
      code: 'invalid_request',
      param: 'customer.name',
      message: 'customer.name is required when expected_payer_tax_id is set.',
      details: [
        { param: 'customer.name', message: 'customer.name is required when expected_payer_tax_id is set.' },
      ],
    });
  });

  it("reports a URL's safety with the body's other problems in one 400", async () => {
    const forbidden = 'http://10.0.0.7/hook';
    const urlProblem = (param: string) => ({
      param,
      message: '10.0.0.7 resolves to a forbidden address (10.0.0.7).',
    });
    expect(
      await error(post('/v1/webhooks/endpoints', { url: forbidden, events: ['no.such.event'] })),
    ).toEqual({
      code: 'invalid_request',
      param: 'events',
      message: 'Invalid events: Unknown event name "no.such.event": see GET /v1/webhooks/event-catalog.',
      details: [
        {
          param: 'events',
          message: 'Unknown event name "no.such.event": see GET /v1/webhooks/event-catalog.',
        },
        urlProblem('url'),
      ],
    });
    const endpoint = await post('/v1/webhooks/endpoints', { url: hookUrl, events: ['charge.paid'] });
    expect(endpoint.status).toBe(201);
    expect(
      (
        await error(
          api(`/v1/webhooks/endpoints/${endpoint.body.id}`, {
            apikey,
            method: 'PATCH',
            body: { url: forbidden, status: 'PAUSED' },
          }),
        )
      ).details,
    ).toEqual([{ param: 'status', message: 'Must be ACTIVE or INACTIVE.' }, urlProblem('url')]);
    expect(
      await error(
        post('/v1/payments', {
          amount: 0,
          paymentMethods: ['PIX'],
          webhookUrl: forbidden,
          idempotencyKey: `msg-${crypto.randomUUID()}`,
        }),
      ),
    ).toMatchObject({
      code: 'invalid_amount',
      param: 'amount',
      details: [{ param: 'amount', message: 'Must be greater than 0.' }, urlProblem('webhookUrl')],
    });
    // The URL's own schema fault (not a string) stands alone: no lookup of what is not a URL.
    expect(
      (await error(post('/v1/webhooks/endpoints', { url: 7, events: ['no.such.event'] }))).details.map(
        (d: { param: string }) => d.param,
      ),
    ).toEqual(['url', 'events']);
  });

  it('says a payment reads its idempotency key from the body when only the header was sent', async () => {
    const hint =
      'idempotencyKey is required in the body: this route does not read the Idempotency-Key header.';
    expect(await error(post('/v1/payments', { amount: 100, paymentMethods: ['PIX'] }))).toEqual({
      code: 'invalid_request',
      param: 'idempotencyKey',
      message: hint,
      details: [{ param: 'idempotencyKey', message: hint }],
    });
    // Without the header, the plain message.
    const plain = await api('/v1/payments', { apikey, body: { amount: 100, paymentMethods: ['PIX'] } });
    expect(plain.body.error.message).toBe('idempotencyKey is required.');
    expect(
      (
        await error(
          post(`/v1/payments/${ids.paid}/refund`, {
            amount: 1,
          }),
        )
      ).details,
    ).toEqual([{ param: 'idempotencyKey', message: hint }]);
    // The key in the body under another name: the "did you mean" says more than the header hint.
    expect(
      await error(
        post('/v1/payments', { amount: 100, paymentMethods: ['PIX'], idempotency_key: 'k-12345678' }),
      ),
    ).toMatchObject({
      message:
        'idempotencyKey is required. Received unknown parameter idempotency_key: did you mean idempotencyKey?',
    });
  });
});
