/**
 * Identifiers around a Pix charge: our own charge id, the API Pix txid and the central bank's
 * end-to-end id. They are deliberately distinct values (the public charge id is never the txid
 * nor the end-to-end id). Pure: new random ids are minted in `shared/ids.ts`.
 */

import { createHash } from 'node:crypto';

/** Length of the txids we derive; API Pix accepts `[a-zA-Z0-9]{26,35}` for immediate charges. */
const TXID_LENGTH = 32;
/** API Pix txid rule for `PUT /cob/{txid}`. */
export const TXID_PATTERN = /^[a-zA-Z0-9]{26,35}$/;
/** BCB end-to-end id: `E`, 8-digit ISPB, `yyyyMMddHHmm` (UTC), 11 alphanumeric characters. */
export const END_TO_END_ID_PATTERN = /^E\d{8}\d{12}[a-zA-Z0-9]{11}$/;
/** Prefix of the public charge id (`ch_<raw>`). */
const CHARGE_ID_PREFIX = 'ch_';

/** `<prefix><UUIDv7>` in lower case, anchored: the form of every time-ordered id (charges, refunds, MED cases and evidence). */
export const prefixedUuidV7 = (prefix: string): RegExp =>
  new RegExp(`^${prefix}[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`);
/** The raw charge id, which is also the payment id. */
const RAW_CHARGE_ID_PATTERN = prefixedUuidV7('');
export const ISPB_PATTERN = /^\d{8}$/;

/** What a charge creation's txid derives from. */
interface TxidSource {
  accountId: string;
  mode: string;
  /** The create route (`createCharge`, `createPixCharge`, `createPayment`): each keeps its own keys. */
  routeId: string;
  idempotencyKey: string;
  /**
   * The idempotency retention period the create falls in (`floor(now / retention)`). A key used
   * again after its record expired is always in a later period, so it never names the earlier
   * charge's cob (a `PUT` of it would revise that cob's amount).
   */
  keyWindow: number;
  /**
   * The request's fingerprint (`requestFingerprint`): the same key with another body gets its
   * own cob, so a create racing another with the same key never revises the winner's cob (a
   * `PUT /cob/{txid}` of an ATIVA cob revises it) before the idempotency record refuses it.
   */
  requestHash: string;
}

/**
 * Deterministic txid for a charge creation: lower-case hex of SHA-256 over the account, the key
 * mode, the route, the client's Idempotency-Key, its retention period and the request's
 * fingerprint, cut to 32 characters.
 * A retried create (same key and body, same route, while its first try is retained) reuses the same txid,
 * so `PUT /cob/{txid}` at the PSP is idempotent too and can never create a second charge; any
 * other key, body, route, account, mode or period gives an unrelated txid. (A retry that crosses a
 * period's edge gets a new txid: the first cob, never shown to anyone, expires unpaid.) The parts
 * are JSON-encoded before hashing so no choice of separators inside them can make two collide.
 */
export function deriveTxid(source: TxidSource): string {
  const { accountId, mode, routeId, idempotencyKey, keyWindow, requestHash } = source;
  return createHash('sha256')
    .update(JSON.stringify([accountId, mode, routeId, idempotencyKey, keyWindow, requestHash]))
    .digest('hex')
    .slice(0, TXID_LENGTH);
}

/** Two-digit, zero-padded decimal. */
const pad2 = (value: number): string => String(value).padStart(2, '0');

/** `yyyyMMddHHmm` in UTC, the timestamp segment of an end-to-end id. */
export function endToEndTimestamp(at: Date): string {
  const year = at.getUTCFullYear();
  if (Number.isNaN(year) || year < 1000 || year > 9999) {
    throw new RangeError('End-to-end id timestamp must be a valid date with a 4-digit year');
  }
  return `${year}${pad2(at.getUTCMonth() + 1)}${pad2(at.getUTCDate())}${pad2(at.getUTCHours())}${pad2(at.getUTCMinutes())}`;
}

/** The smallest raw id that can belong to a charge created at `ms` (for time-range queries). */
export function chargeIdFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}

/** Public form of a raw charge id, as shown in `Charge.id`. */
export const publicChargeId = (raw: string): string => `${CHARGE_ID_PREFIX}${raw}`;

/**
 * Raw charge id from path input, which may be `ch_<raw>` or the bare raw id (the spec accepts
 * both and the payments surface uses the raw one). Returns `undefined` for anything that is not
 * a lower-case UUIDv7, so callers answer 404 without touching storage.
 */
export function parseChargeId(input: string): string | undefined {
  const raw = input.startsWith(CHARGE_ID_PREFIX) ? input.slice(CHARGE_ID_PREFIX.length) : input;
  return RAW_CHARGE_ID_PATTERN.test(raw) ? raw : undefined;
}

/**
 * The charge's token in its Pix location URL: the UUID's 16 bytes in base64url (22 characters),
 * so that a deployed host (about 46 characters) plus `/pix/` and the token stays within the BR
 * Code's 77-character location; the 36-character UUID would not.
 */
export const locationToken = (rawId: string): string =>
  Buffer.from(rawId.replaceAll('-', ''), 'hex').toString('base64url');

/** The raw charge id a location token names, or `undefined` when it names none. */
export function parseLocationToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return undefined;
  const hex = Buffer.from(token, 'base64url').toString('hex');
  return parseChargeId(
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  );
}
