/**
 * `POST /v1/charges` and `POST /v1/pix/charges` input: the body schema, the cross-field payer
 * lock rules, metadata sanitising and the Idempotency-Key header. Everything here runs before
 * anything is read or written.
 */

import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { InvalidInput } from './errors.ts';
import { classifyTaxId, normalizeTaxId } from './tax-id.ts';
import { maxChars, parseInput, requiredMessage, suggests } from './validation.ts';

/** API Pix `valor` is at most 10 integer digits with 2 decimals: R$ 9,999,999,999.99. */
export const PIX_MAX_AMOUNT = 999_999_999_999;
const MIN_EXPIRES_IN = 60;
const MAX_EXPIRES_IN = 86_400;
const MAX_DESCRIPTION_LENGTH = 500;

/**
 * Metadata keys the service owns: `description` is folded in from the `description` field,
 * `failure` and `med` carry the service's own information on transactions (Part 2), and the
 * rest name internal fields that must never be spoofed by a client. Keys starting with `_` are
 * stripped too.
 */
const RESERVED_METADATA_KEYS = [
  'description',
  'failure',
  'med',
  'provider',
  'providerFee',
  'platformFee',
  'netAmount',
  'txid',
  'end_to_end_id',
] as const;

const MAX_METADATA_KEYS = 50;
const MAX_METADATA_KEY_LENGTH = 40;
const MAX_METADATA_VALUE_LENGTH = 500;

const TaxId = v.pipe(
  v.string(),
  v.transform(normalizeTaxId),
  v.check(
    (value) => classifyTaxId(value) !== undefined,
    'Must be a CPF (11 digits) or CNPJ (14 characters) with valid check digits',
  ),
);

const Customer = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'Must not be empty'), ...maxChars(200))),
  document: v.optional(TaxId),
  email: v.optional(v.pipe(v.string(), v.trim(), v.email('Must be an e-mail address'), v.maxLength(254))),
  phone: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^\+?[0-9 ()-]{8,20}$/, 'Must be a phone number'))),
});

/**
 * A number DynamoDB stores and JavaScript reads back as sent: 0, or a magnitude from 1e-130
 * (DynamoDB's smallest) to 2^53 − 1 (beyond it the document client refuses to write it).
 */
const storableNumber = (n: number): boolean =>
  n === 0 || (Math.abs(n) >= 1e-130 && Math.abs(n) <= Number.MAX_SAFE_INTEGER);

const MetadataValue = v.union(
  [
    v.pipe(v.string(), ...maxChars(MAX_METADATA_VALUE_LENGTH)),
    v.pipe(v.number(), v.check(storableNumber)),
    v.boolean(),
    v.null(),
  ],
  `Values must be strings (at most ${MAX_METADATA_VALUE_LENGTH} characters), numbers (0, or between 1e-130 and 9007199254740991 in magnitude), booleans or null`,
);

// It drops the object-prototype names `__proto__`, `constructor` and `prototype` (README lists
// them as stripped), and would take an array as an object of its indexes: `assertObjectFields`.
export const Metadata = v.pipe(
  v.record(
    v.pipe(
      v.string(),
      v.maxLength(MAX_METADATA_KEY_LENGTH, `Keys must be at most ${MAX_METADATA_KEY_LENGTH} characters`),
    ),
    MetadataValue,
  ),
  v.check((m) => Object.keys(m).length <= MAX_METADATA_KEYS, `At most ${MAX_METADATA_KEYS} keys`),
);

const body = (paymentMethod: v.GenericSchema<unknown, 'pix' | undefined>) =>
  v.strictObject({
    amount: v.pipe(
      v.number('Must be an integer amount in centavos'),
      v.integer('Must be an integer amount in centavos'),
      v.minValue(1, 'Must be greater than 0'),
      v.maxValue(PIX_MAX_AMOUNT, `Must be at most ${PIX_MAX_AMOUNT} (the Pix maximum, R$ 9,999,999,999.99)`),
    ),
    currency: v.optional(v.pipe(v.string(), v.toUpperCase(), v.literal('BRL', 'Pix requires BRL')), 'BRL'),
    payment_method: paymentMethod,
    description: v.optional(v.pipe(v.string(), ...maxChars(MAX_DESCRIPTION_LENGTH))),
    expires_in: v.optional(
      v.pipe(
        v.number('Must be an integer number of seconds'),
        v.integer('Must be an integer number of seconds'),
        v.minValue(MIN_EXPIRES_IN, `Must be at least ${MIN_EXPIRES_IN} seconds`),
        // Larger windows are accepted and capped, as the spec says.
        v.transform((seconds) => Math.min(seconds, MAX_EXPIRES_IN)),
      ),
    ),
    customer: v.optional(Customer, {}),
    expected_payer_tax_id: v.optional(TaxId),
    metadata: v.optional(Metadata, {}),
  });

const Pix = v.literal('pix', 'Only pix is accepted');
export const CreateChargeBody = body(Pix);
export const CreatePixChargeBody = body(v.optional(Pix));
export type CreateChargeBody = v.InferOutput<typeof CreatePixChargeBody>;

/**
 * 400 for an array given as `metadata` or `customer`, which the schemas would read as an object
 * of its indexes (`{}` for `[]`).
 */
export function assertObjectFields(input: unknown): void {
  for (const field of ['metadata', 'customer'])
    if (Array.isArray((input as Record<string, unknown> | null)?.[field]))
      throw new InvalidInput(`${field} must be a JSON object, not an array.`, { param: field });
}

/** Validates the body, then the payer-lock rules that span fields. */
export function parseCreateCharge(
  input: unknown,
  route: 'createCharge' | 'createPixCharge',
): CreateChargeBody {
  assertObjectFields(input);
  const parsed = parseAmountFirst(input, route);
  const lock = parsed.expected_payer_tax_id;
  if (lock !== undefined) {
    if (parsed.customer.name === undefined) {
      // Part 1: customer.name is "Required when expected_payer_tax_id is set": the missing field.
      throw new InvalidInput('customer.name is required when expected_payer_tax_id is set.', {
        param: 'customer.name',
      });
    }
    if (parsed.customer.document !== undefined && parsed.customer.document !== lock) {
      throw new InvalidInput('expected_payer_tax_id must equal customer.document when both are sent.', {
        param: 'expected_payer_tax_id',
      });
    }
  }
  return parsed;
}

const parseAmountFirst = (input: unknown, route: 'createCharge' | 'createPixCharge'): CreateChargeBody =>
  parseWithAmountCode(route === 'createCharge' ? CreateChargeBody : CreatePixChargeBody, input);

/** Parses a create body; a failing `amount` gets the specific `invalid_amount` code. */
export function parseWithAmountCode<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  try {
    return parseInput(schema, input, 'body');
  } catch (error) {
    if (error instanceof Error && 'param' in error && error.param === 'amount') {
      throw new InvalidInput(error.message, {
        code: 'invalid_amount',
        param: 'amount',
        details: (error as { details?: [] }).details ?? [],
      });
    }
    throw error;
  }
}

/** Public metadata: client keys minus reserved and `_` ones, plus the folded description. */
export function sanitizeMetadata(
  metadata: Record<string, unknown>,
  description: string | undefined,
): Record<string, unknown> {
  const reserved = new Set<string>(RESERVED_METADATA_KEYS);
  const kept = Object.fromEntries(
    Object.entries(metadata).filter(([key]) => !key.startsWith('_') && !reserved.has(key)),
  );
  return description === undefined ? kept : { ...kept, description };
}

export const IDEMPOTENCY_KEY_MIN = 8;
export const IDEMPOTENCY_KEY_MAX = 128;
/** Visible ASCII only. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;

/** An idempotency key given in a body (`idempotencyKey` of a payment or a refund). */
export const idempotencyKeyField = (notAString: string) =>
  v.pipe(
    v.string(notAString),
    v.regex(IDEMPOTENCY_KEY_PATTERN, 'Must be visible ASCII characters'),
    v.minLength(IDEMPOTENCY_KEY_MIN, `Must be at least ${IDEMPOTENCY_KEY_MIN} characters`),
    v.maxLength(IDEMPOTENCY_KEY_MAX, `Must be at most ${IDEMPOTENCY_KEY_MAX} characters`),
  );

const KEY_IN_BODY =
  'idempotencyKey is required in the body: this route does not read the Idempotency-Key header.';

const KEYS_DIFFER =
  "The Idempotency-Key header differs from the body's idempotencyKey: this route reads its key from the body only. Send the same key in both, or only idempotencyKey.";

/**
 * Parses a body that carries its own `idempotencyKey` (a payment, a refund). Sent only as the
 * Idempotency-Key header (the charge routes' way), the missing key says where this route reads it;
 * a header with another key than the body's is refused rather than ignored, since the merchant
 * sending it believes it guards the request. The same key in both is accepted.
 */
export function withKeyInBody<T extends { idempotencyKey: string }>(
  parse: () => T,
  headers: Record<string, string>,
): T {
  const parsed = parseKeyInBody(parse, headers);
  const header = headers['idempotency-key'];
  // An empty header is no key, as on the charge routes (`idempotencyKeyFrom`).
  if (header !== undefined && header !== '' && header !== parsed.idempotencyKey)
    throw new InvalidInput(KEYS_DIFFER, { param: 'Idempotency-Key' });
  return parsed;
}

function parseKeyInBody<T>(parse: () => T, headers: Record<string, string>): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof InvalidInput) || headers['idempotency-key'] === undefined) throw error;
    // A key sent in the body under another name gets its "did you mean" instead.
    if (error.details?.some((d) => suggests(d, 'idempotencyKey'))) throw error;
    const details = error.details?.map((d) =>
      d.param === 'idempotencyKey' && d.message === requiredMessage('idempotencyKey')
        ? { ...d, message: KEY_IN_BODY }
        : d,
    );
    if (!details?.some((d) => d.message === KEY_IN_BODY)) throw error;
    throw error.withDetails(details, error.param === 'idempotencyKey' ? KEY_IN_BODY : error.message);
  }
}

/** The `Idempotency-Key` header: required, 8–128 visible ASCII characters. */
export function idempotencyKeyFrom(headers: Record<string, string>): string {
  const key = headers['idempotency-key'];
  if (key === undefined || key === '') {
    throw new InvalidInput('The Idempotency-Key header is required.', { param: 'Idempotency-Key' });
  }
  if (
    key.length < IDEMPOTENCY_KEY_MIN ||
    key.length > IDEMPOTENCY_KEY_MAX ||
    !IDEMPOTENCY_KEY_PATTERN.test(key)
  ) {
    throw new InvalidInput(
      `Idempotency-Key must be ${IDEMPOTENCY_KEY_MIN}–${IDEMPOTENCY_KEY_MAX} visible ASCII characters.`,
      {
        param: 'Idempotency-Key',
      },
    );
  }
  return key;
}

/** Fingerprint of a request for idempotency: the same key with another body is a conflict. */
export function requestFingerprint(routeId: string, input: unknown): string {
  return createHash('sha256')
    .update(`${routeId}\n${canonicalJson(input)}`)
    .digest('hex');
}

/** JSON with object keys sorted, so key order in the client's body does not matter. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
