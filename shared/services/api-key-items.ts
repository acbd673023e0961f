/** What issuing, rotating and revoking an API key share: new key material and audit events. */

import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../auth/api-key-crypto.ts';
import type { ApiKeyRecord, AuditEvent } from '../domain/api-keys.ts';
import type { Mode } from '../domain/scope.ts';

/** A new key's cleartext, record and hash (not yet stored). */
export function mintKey(accountId: string, mode: Mode, label: string, now: string) {
  const material = generateApiKey(mode);
  const record: ApiKeyRecord = {
    id: randomUUID(),
    accountId,
    label,
    mode,
    prefix: material.prefix,
    fingerprint: material.fingerprint,
    createdAt: now,
  };
  return { apiKey: material.apiKey, record, hash: material.hash };
}

/** An audit event of `action` by `actorUserId` at `now`. */
export const auditEvent = (now: string, event: Omit<AuditEvent, 'id' | 'createdAt'>): AuditEvent => ({
  id: randomUUID(),
  createdAt: now,
  ...event,
});
