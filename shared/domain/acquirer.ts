/**
 * A merchant's live acquirer (README, "Going live"): what the table may hold about it (URLs,
 * the Pix key, when it was set) and what it may not (the client secret, certificate and key: the
 * acquirer secret, one per account, in Secrets Manager or a local owner-only file). The callback
 * URL carries a random token; only its SHA-256 is stored, so the table alone cannot forge one.
 */

import { createHash } from 'node:crypto';
import * as v from 'valibot';

/** On the account item: everything about the acquirer but its credentials. */
export interface AcquirerSettings {
  kind: 'api-pix';
  baseUrl: string;
  tokenUrl: string;
  /** The merchant's Pix key at the PSP (charges are paid to it, callbacks registered for it). */
  pixKey: string;
  scopes?: string;
  /** SHA-256 (hex) of the callback URL's token. */
  callbackTokenHash: string;
  configuredAt: string;
}

/** The acquirer secret: read only by the functions that call the acquirer, never logged. */
export interface AcquirerSecret {
  clientId: string;
  clientSecret: string;
  /** PEM: the merchant's client certificate and key for mutual TLS, and the PSP's CA if private. */
  cert: string;
  key: string;
  ca?: string;
}

/** The callback route's token: 32 random bytes, base64url (never stored; its hash is). */
export const CALLBACK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const callbackTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Where the PSP posts (`{webhookUrl}/pix` per the standard): `<api>/v1/provider-callbacks/<token>`. */
export const callbackWebhookUrl = (apiBaseUrl: string, token: string): string =>
  `${apiBaseUrl.replace(/\/+$/, '')}/v1/provider-callbacks/${token}`;

const httpsUrl = v.pipe(
  v.string(),
  v.url(),
  v.check((url) => url.startsWith('https://'), 'Must be an https:// URL'),
);

/** `npm run admin -- set-provider` options, as given. */
export const setProviderSchema = v.strictObject({
  baseUrl: httpsUrl,
  tokenUrl: httpsUrl,
  clientId: v.pipe(v.string(), v.minLength(1)),
  clientSecret: v.pipe(v.string(), v.minLength(1)),
  pixKey: v.pipe(v.string(), v.minLength(1), v.maxLength(77)),
  scopes: v.optional(v.pipe(v.string(), v.minLength(1))),
});
export type SetProviderInput = v.InferOutput<typeof setProviderSchema>;
