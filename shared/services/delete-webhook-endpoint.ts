/**
 * `DELETE /v1/webhooks/endpoints/{id}`: ONE transaction deletes the endpoint (only if it exists)
 * and takes 1 off the scope's endpoint count, making room under the cap for another
 * (`create-webhook-endpoint.ts`). An absent endpoint (another scope's, or deleted meanwhile)
 * changes nothing, the count included.
 */

import type { MerchantScope } from '../domain/scope.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { endpointCountChange, endpointDelete } from '../store/webhook-endpoints.ts';

/** `false` when the endpoint does not exist. */
export async function deleteWebhookEndpoint(scope: MerchantScope, id: string): Promise<boolean> {
  const result = await transactRetryingConflicts({
    endpoint: endpointDelete(scope, id),
    endpointCount: endpointCountChange(scope, -1),
  });
  return result.committed;
}
