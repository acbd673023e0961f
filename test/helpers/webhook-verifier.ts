/**
 * A webhook signature verifier written from the spec (Part 2 and the README's receiver), independent of
 * the service's signing code: what a merchant's receiver would do.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';

const TOLERANCE_SECONDS = 300;

const equalHex = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

export function verifyAcmeSignature(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  if (header.startsWith('sha256=')) {
    return equalHex(header.slice(7), createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex'));
  }
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return false;
  return equalHex(
    parts.v1,
    createHmac('sha256', secret).update(`${parts.t}.${rawBody}`, 'utf8').digest('hex'),
  );
}
