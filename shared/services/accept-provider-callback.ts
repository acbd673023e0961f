/**
 * A live acquirer's callback (`POST /v1/provider-callbacks/{token}/pix`): the token names the
 * account (looked up by its SHA-256, so the table never compares secrets), the body's end-to-end
 * ids go on the provider callback queue, and the PSP gets its answer at once; the consumer reads
 * each Pix back at the acquirer before anything changes (`settle-acquirer-pix.ts`).
 */

import { CALLBACK_TOKEN_PATTERN, callbackTokenHash } from '../domain/acquirer.ts';
import { NotFound } from '../domain/errors.ts';
import { callbackEndToEndIds, providerCallbackSchema } from '../domain/provider-callback.ts';
import { parseInput } from '../domain/validation.ts';
import { enqueueReceivedPix } from '../providers/callback-queue.ts';
import { accountOfCallback } from '../store/accounts.ts';

/**
 * 404 for a token no account has (before the body's shape is looked at; a body that is not a JSON
 * object was refused at the edge already); 400 for a body that is not `{"pix": [...]}`.
 */
export async function acceptProviderCallback(token: string, body: unknown): Promise<{ enqueued: number }> {
  const accountId = CALLBACK_TOKEN_PATTERN.test(token)
    ? await accountOfCallback(callbackTokenHash(token))
    : undefined;
  if (accountId === undefined) throw new NotFound();
  const endToEndIds = callbackEndToEndIds(parseInput(providerCallbackSchema, body, 'body'));
  await enqueueReceivedPix(endToEndIds.map((endToEndId) => ({ accountId, endToEndId })));
  return { enqueued: endToEndIds.length };
}
