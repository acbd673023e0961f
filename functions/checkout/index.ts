import { createApiHandler } from '#shared/http/api-handler.ts';
import { getChargeQrCode } from './get-charge-qr-code.ts';
import { getCheckoutPage } from './get-checkout-page.ts';
import { getCheckoutStatus } from './get-checkout-status.ts';
import { getPixPayload } from './get-pix-payload.ts';
import { getPixSigningKeys } from './get-pix-signing-keys.ts';

export const handler = createApiHandler('checkout', {
  getCheckoutPage,
  getCheckoutStatus,
  getChargeQrCode,
  getPixPayload,
  getPixSigningKeys,
});
