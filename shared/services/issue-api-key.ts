/**
 * Issuing an API key: fresh key material, its record and lookup and an audit event in one
 * transaction. The cleartext is returned once and never stored (only its SHA-256).
 */

import type { IssuedKey } from '../domain/api-keys.ts';
import type { Mode } from '../domain/scope.ts';
import { auditItem, newKeyItems } from '../store/api-keys.ts';
import { transact } from '../store/client.ts';
import { auditEvent, mintKey } from './api-key-items.ts';

export async function issueApiKey(input: {
  accountId: string;
  mode: Mode;
  label: string;
  actorUserId: string;
}): Promise<IssuedKey> {
  const now = new Date().toISOString();
  const { apiKey, record, hash } = mintKey(input.accountId, input.mode, input.label, now);
  const result = await transact({
    key: newKeyItems(record, hash),
    audit: auditItem(
      input.accountId,
      auditEvent(now, {
        action: 'api_key.issued',
        actorUserId: input.actorUserId,
        keyId: record.id,
        fingerprint: record.fingerprint,
      }),
    ),
  });
  // A new random id and hash cannot exist already: a failed condition here is a bug.
  if (!result.committed) throw new Error('API key id or hash collision');
  return { apiKey, record };
}
