/** API key rules of Part 1 that do not touch storage: who may manage keys and the public shapes. */

import * as v from 'valibot';

import type { Role } from './auth.ts';
import { PermissionDenied } from './errors.ts';
import type { Mode } from './scope.ts';
import { maxChars, queryInteger } from './validation.ts';

/** Any member lists keys; only OWNER and ADMIN issue, rotate and revoke (and read the audit log). */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  label: string;
  mode: Mode;
  prefix: string;
  fingerprint: string;
  createdAt: string;
}

export interface ApiKeyLookup {
  keyId: string;
  accountId: string;
  mode: Mode;
  fingerprint: string;
  hash: string;
}

type AuditAction = 'api_key.issued' | 'api_key.rotated' | 'api_key.revoked';

export interface AuditEvent {
  id: string;
  action: AuditAction;
  actorUserId: string;
  keyId: string;
  fingerprint: string;
  replacedKeyId?: string;
  replacedFingerprint?: string;
  createdAt: string;
}

export interface IssuedKey {
  apiKey: string;
  record: ApiKeyRecord;
}

/** Key and audit event ids (`randomUUID`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A key's id is a UUID: anything else names no key (and is never used as a key's sort key). */
export const isApiKeyId = (id: string | undefined): id is string => id !== undefined && UUID.test(id);

export const canManageKeys = (role: Role): boolean => role === 'OWNER' || role === 'ADMIN';

export function requireKeyManager(role: Role): void {
  if (!canManageKeys(role)) {
    throw new PermissionDenied(
      'API_KEY_ROLE_REQUIRED',
      'Issuing, rotating and revoking API keys requires the OWNER or ADMIN role.',
    );
  }
}

const MAX_LABEL_LENGTH = 64;
const Label = v.pipe(v.string(), ...maxChars(MAX_LABEL_LENGTH));

export const CreateApiKeyBody = v.optional(
  v.strictObject({ label: v.optional(Label), test: v.optional(v.boolean()) }),
  {},
);
export type CreateApiKeyBody = v.InferOutput<typeof CreateApiKeyBody>;

export const RotateApiKeyBody = v.optional(v.strictObject({ label: v.optional(Label) }), {});
export type RotateApiKeyBody = v.InferOutput<typeof RotateApiKeyBody>;

/** Issue and rotate: the only responses that ever carry the cleartext. */
export const serializeIssuedKey = ({ apiKey, record }: IssuedKey) => ({
  id: record.id,
  apiKey,
  fingerprint: record.fingerprint,
  prefix: record.prefix,
  label: record.label,
  createdAt: record.createdAt,
  mode: record.mode,
});

/** Where a page of the audit log ends: the last event's time and id (its place in the log). */
interface AuditPosition {
  createdAt: string;
  id: string;
}

/** The opaque `next_cursor` of a page ending at `event` (its time and id, base64url). */
export const auditCursor = (event: AuditPosition): string =>
  Buffer.from(`${event.createdAt}|${event.id}`, 'utf8').toString('base64url');

function parseAuditCursor(cursor: string): AuditPosition | undefined {
  const [createdAt = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const valid =
    rest.length === 0 && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(createdAt) && UUID.test(id);
  return valid ? { createdAt, id } : undefined;
}

/** `GET /v1/api-keys/audit-log` query: `starting_after` is a page's `next_cursor`. */
export const AuditQuery = v.strictObject({
  limit: queryInteger(1, 100, 25),
  starting_after: v.optional(
    v.pipe(
      v.string(),
      v.description("The previous page's `next_cursor`."),
      v.check((cursor) => parseAuditCursor(cursor) !== undefined, 'Must be a next_cursor of this log'),
      v.transform((cursor) => parseAuditCursor(cursor) as AuditPosition),
    ),
  ),
});

export const serializeKeyListItem = (record: ApiKeyRecord) => ({
  id: record.id,
  prefix: record.prefix,
  label: record.label,
  createdAt: record.createdAt,
  mode: record.mode,
});

export const serializeAuditEvent = (event: AuditEvent) => ({ object: 'audit_event', ...event });
