/**
 * New identifiers: the only place the service draws random ids (CSPRNG). Domain code stays
 * deterministic: use cases mint ids here and hand them in.
 */

import { randomBytes, randomInt } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { endToEndTimestamp, ISPB_PATTERN } from './domain/pix-ids.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const END_TO_END_SUFFIX_LENGTH = 11;

/** `length` characters drawn uniformly (CSPRNG, no modulo bias) from `[A-Za-z0-9]`. */
function randomAlphanumeric(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length));
  }
  return out;
}

/**
 * New end-to-end id in the BCB format for the participant `ispb` at instant `at` (UTC minutes).
 * Used by the sandbox/fake PSP to mint the ids a real bank would send; 32 characters, matching
 * {@link END_TO_END_ID_PATTERN}. The 11-character random tail (62^11 values) keeps ids unique
 * within a minute.
 */
export function newEndToEndId(ispb: string, at: Date): string {
  if (!ISPB_PATTERN.test(ispb)) {
    throw new RangeError(`ISPB must be 8 digits, got "${ispb}"`);
  }
  return `E${ispb}${endToEndTimestamp(at)}${randomAlphanumeric(END_TO_END_SUFFIX_LENGTH)}`;
}

/**
 * A new raw charge id: a UUIDv7 (RFC 9562), whose first 48 bits are the creation time in
 * milliseconds. Ids therefore sort by creation time, which is what lets the charge list page by
 * cursor (the sort key) with a stable order while new charges keep arriving; the payment id of
 * Part 2 is this UUID.
 */
export const newChargeId = (now: number): string => uuidv7({ msecs: now });

/** `evt_…`: stable per business event, the receiver's dedupe key. */
export const newEventId = (): string => `evt_${randomBytes(12).toString('hex')}`;

/** A ledger journal's id. */
export const newJournalId = (): string => `jrn_${randomBytes(10).toString('hex')}`;

/** `re_<UUIDv7>`: a refund (its API Pix devolution id is the UUID without dashes). */
export const newRefundId = (now: number): string => `re_${uuidv7({ msecs: now })}`;

/** `med_<UUIDv7>`: a MED case (ids sort by creation, so the case list pages by sort key). */
export const newMedCaseId = (now: number): string => `med_${uuidv7({ msecs: now })}`;

/** A MED evidence id, `medev_<UUIDv7>`. */
export const newMedEvidenceId = (now: number): string => `medev_${uuidv7({ msecs: now })}`;

/** The random part of an evidence object's key (128 bits): never derived from the case or evidence id. */
export const newEvidenceObjectToken = (): string => randomBytes(16).toString('hex');

/** The token of a provider callback URL (256 bits, base64url): the URL's only credential. */
export const newCallbackToken = (): string => randomBytes(32).toString('base64url');

/** `we_…`: a webhook endpoint. */
export const newWebhookEndpointId = (): string => `we_${randomBytes(12).toString('hex')}`;

/** A webhook signing secret (an endpoint's, or the override's): 32 random bytes, hex. */
export const newWebhookSecret = (): string => randomBytes(32).toString('hex');
