/**
 * `POST /v1/webhooks/override-secret/rotate`: creates the secret that signs deliveries to a
 * payment's `webhookUrl`, or swaps it at once (no overlap, as for endpoints). Shown this once.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { newWebhookSecret } from '../ids.ts';
import { putOverrideSecret } from '../store/webhook-override-secret.ts';

export async function rotateWebhookOverrideSecret(scope: MerchantScope, now = new Date()): Promise<string> {
  const secret = newWebhookSecret();
  await putOverrideSecret(scope, secret, now);
  return secret;
}
