import { NotFound } from '#shared/domain/errors.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { loadPublicCharge } from './load-charge.ts';

/** GET /checkout/{id}/qr.png: the QR image (`pix.qr_code_url`); it encodes exactly `pix.br_code`. */
export const getChargeQrCode: RouteHandler<undefined> = async ({ pathParameters }) => {
  const charge = await loadPublicCharge(pathParameters.id);
  if (!charge.qrCodeBase64) throw new NotFound('This charge has no QR code.');
  return {
    status: 200,
    raw: { contentType: 'image/png', body: Buffer.from(charge.qrCodeBase64, 'base64') },
    headers: { 'Cache-Control': 'public, max-age=86400, immutable' },
  };
};
