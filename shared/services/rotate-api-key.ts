/**
 * Rotating an API key: the old key is retired and a new one of the same mode issued in one
 * transaction, so of concurrent rotations of one key exactly one wins (the others find it no
 * longer active).
 */

import type { IssuedKey } from '../domain/api-keys.ts';
import { auditItem, getActiveKey, newKeyItems, retireKeyItems } from '../store/api-keys.ts';
import { transact } from '../store/client.ts';
import { auditEvent, mintKey } from './api-key-items.ts';

/** `undefined` when no active key with this id exists in the account (nothing is changed). */
export async function rotateApiKey(input: {
  accountId: string;
  keyId: string;
  label?: string;
  actorUserId: string;
}): Promise<IssuedKey | undefined> {
  const old = await getActiveKey(input.accountId, input.keyId);
  if (!old) return undefined;
  const now = new Date().toISOString();
  const { apiKey, record, hash } = mintKey(input.accountId, old.mode, input.label ?? old.label, now);
  const result = await transact({
    retired: retireKeyItems(old, input.actorUserId, now),
    key: newKeyItems(record, hash),
    audit: auditItem(
      input.accountId,
      auditEvent(now, {
        action: 'api_key.rotated',
        actorUserId: input.actorUserId,
        keyId: record.id,
        fingerprint: record.fingerprint,
        replacedKeyId: old.id,
        replacedFingerprint: old.fingerprint,
      }),
    ),
  });
  return result.committed ? { apiKey, record } : undefined;
}
