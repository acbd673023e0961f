/**
 * `X-Acme-Signature` (Part 2): `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<rawBody>">` for
 * canonical and MED events, `sha256=<hex HMAC-SHA256 of rawBody>` for the legacy families.
 * Keyed with the endpoint secret.
 */

import { createHmac } from 'node:crypto';
import { usesLegacySignature } from './webhook-catalog.ts';

const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex');

export function signatureHeader(
  eventType: string,
  rawBody: string,
  secret: string,
  unixSeconds: number,
): string {
  return usesLegacySignature(eventType)
    ? `sha256=${hmac(secret, rawBody)}`
    : `t=${unixSeconds},v1=${hmac(secret, `${unixSeconds}.${rawBody}`)}`;
}
