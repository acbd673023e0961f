/** Revoking an API key: record marked revoked, lookup removed, audit event, in one transaction. */

import { auditItem, getActiveKey, retireKeyItems } from '../store/api-keys.ts';
import { transact } from '../store/client.ts';
import { auditEvent } from './api-key-items.ts';

/** `false` when no active key with this id exists in the account (nothing is changed). */
export async function revokeApiKey(input: {
  accountId: string;
  keyId: string;
  actorUserId: string;
}): Promise<boolean> {
  const old = await getActiveKey(input.accountId, input.keyId);
  if (!old) return false;
  const now = new Date().toISOString();
  const result = await transact({
    retired: retireKeyItems(old, input.actorUserId, now),
    audit: auditItem(
      input.accountId,
      auditEvent(now, {
        action: 'api_key.revoked',
        actorUserId: input.actorUserId,
        keyId: old.id,
        fingerprint: old.fingerprint,
      }),
    ),
  });
  return result.committed;
}
