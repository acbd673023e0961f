import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { rotateWebhookOverrideSecret as rotate } from '#shared/services/rotate-webhook-override-secret.ts';

/**
 * POST /v1/webhooks/override-secret/rotate: creates or swaps the secret that signs deliveries
 * to a payment's `webhookUrl`. Shown this once.
 */
export const rotateWebhookOverrideSecret: RouteHandler<KeyPrincipal> = async ({ principal }) => ({
  status: 200,
  body: { secret: await rotate(principal) },
});
