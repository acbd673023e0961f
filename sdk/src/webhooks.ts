/**
 * Verifies an `X-Acme-Signature` header over the raw request body, for both schemes the service
 * sends (Part 2, "Authentication"):
 * - `t=<unix>,v1=<hex>`: HMAC-SHA256 of `"<t>.<rawBody>"` (canonical `charge.*`, `payout.*` and MED
 *   events), with a timestamp tolerance against replays;
 * - `sha256=<hex>`: HMAC-SHA256 of the raw body (legacy `payment.*`, `withdrawal.*`), which carries
 *   no timestamp and leaves the headers unsigned: deduplicate those on their signed body fields
 *   (`event`, `data.transactionId`, `data.status`, `data.occurredAt`, plus `data.refund.id`/`status`
 *   for `payment.refunded`), not on `X-Acme-Delivery-Id`.
 * Several secrets are accepted so a receiver keeps working across a `rotate-secret` (the swap is
 * instant on the service's side).
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.ts';

const SIGNATURE_HEADER = 'x-acme-signature';

/** Seconds of clock difference accepted in either direction. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookSignatureFailure =
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_outside_tolerance'
  | 'no_matching_signature'
  | 'invalid_json';

export class WebhookSignatureError extends Error {
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

/** Node's `req.headers`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** The current Unix time in seconds (tests). */
  nowSeconds?: number;
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

const hmacHex = (secret: string, data: Buffer) => createHmac('sha256', secret).update(data).digest('hex');

/** A signature that is not 64 hex digits (any other byte, even one of the same string length) matches nothing. */
const sameHex = (expected: string, given: string) =>
  /^[0-9a-f]{64}$/.test(given) && timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));

function matchesAny(secrets: readonly string[], data: Buffer, signatures: readonly string[]): boolean {
  // Every comparison runs, so timing does not tell which secret or signature matched.
  let matched = false;
  for (const secret of secrets) {
    const expected = hmacHex(secret, data);
    for (const signature of signatures) if (sameHex(expected, signature.toLowerCase())) matched = true;
  }
  return matched;
}

/**
 * Checks the signature of one delivery and returns its parsed event; throws
 * `WebhookSignatureError` (with a `reason`) otherwise. Pass the body exactly as received, before
 * any JSON parsing: a re-serialized body does not match.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).filter((s) => s.length > 0);
  if (keys.length === 0) throw new TypeError('verify() needs at least one endpoint secret.');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const header = headerValue(headers, SIGNATURE_HEADER)?.trim();
  if (!header) throw new WebhookSignatureError('missing_signature', 'No X-Acme-Signature header.');

  const legacyScheme = header.startsWith('sha256=');
  if (legacyScheme) {
    if (!matchesAny(keys, body, [header.slice('sha256='.length)])) {
      throw new WebhookSignatureError('no_matching_signature', 'The signature matches none of the secrets.');
    }
  } else {
    const pairs = header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    });
    const timestamp = pairs.find(([name]) => name === 't')?.[1] ?? '';
    const signatures = pairs.filter(([name, value]) => name === 'v1' && value).map(([, value]) => value);
    if (!/^\d+$/.test(timestamp) || signatures.length === 0) {
      throw new WebhookSignatureError('malformed_signature', 'Expected t=<unix>,v1=<hex> or sha256=<hex>.');
    }
    const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (Math.abs(now - Number(timestamp)) > tolerance) {
      throw new WebhookSignatureError(
        'timestamp_outside_tolerance',
        `The signature's timestamp is more than ${tolerance} s from now.`,
      );
    }
    if (!matchesAny(keys, Buffer.concat([Buffer.from(`${timestamp}.`), body]), signatures)) {
      throw new WebhookSignatureError('no_matching_signature', 'The signature matches none of the secrets.');
    }
  }
  let event: WebhookEvent;
  try {
    event = JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookSignatureError('invalid_json', 'The signed body is not JSON.');
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    throw new WebhookSignatureError('invalid_json', 'The signed body is not a JSON object.');
  // Each family has one scheme: the legacy payment.* and withdrawal.* events sha256=, every
  // other event t=,v1=. A signature of the other scheme proves nothing about this event.
  const type = 'type' in event ? event.type : (event as { event?: unknown }).event;
  const legacyEvent = typeof type === 'string' && /^(payment|withdrawal)\./.test(type);
  if (legacyEvent !== legacyScheme)
    throw new WebhookSignatureError(
      'no_matching_signature',
      `A ${legacyEvent ? 'legacy' : 'canonical'} event must be signed ${legacyEvent ? 'sha256=' : 't=,v1='}.`,
    );
  return event;
}

export const webhooks = { verify };
