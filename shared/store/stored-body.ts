/**
 * A JSON body kept to be sent again exactly (an idempotent create's response, an outbox event's
 * delivery body), stored compactly: without the QR image of the Charge it carries (rendered again
 * from the Charge's BR Code, qr-image.ts) and Brotli-compressed, so such an item fits in one
 * write unit (1 KB) where the image made it six.
 */

import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { qrPngBase64 } from './qr-image.ts';

const QR_FIELD = '"qr_code_base64":"';

interface ChargeBody {
  pix?: { br_code?: unknown; qr_code_base64?: unknown };
}
type BodyWithCharge = ChargeBody & { data?: { object?: ChargeBody } };

/** The Charge of a body: the body itself, or an event's `data.object`. */
const chargeOf = (body: unknown): ChargeBody | undefined => {
  const value = body as BodyWithCharge | null | undefined;
  return value?.data?.object ?? value ?? undefined;
};

/** The attributes of a stored body: `body` (Binary), and `qrAt` where the image was cut out. */
export function storedBody(value: unknown): { body: Uint8Array; qrAt?: number } {
  let json = JSON.stringify(value);
  let qrAt: number | undefined;
  const image = chargeOf(value)?.pix?.qr_code_base64;
  const at = typeof image === 'string' ? json.indexOf(`${QR_FIELD}${image}"`) : -1;
  if (typeof image === 'string' && at !== -1) {
    qrAt = at + QR_FIELD.length;
    json = json.slice(0, qrAt) + json.slice(qrAt + image.length);
  }
  const body = brotliCompressSync(json, {
    params: {
      // Quality 5, not the default 11: 30× less CPU (0.03 against 1 ms a body, on the request
      // path of every pay) for bodies about 8 % larger, still well under one write unit
      // (docs/benchmarks.md, "Webhook pipeline: two node costs removed").
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
  return { body, ...(qrAt !== undefined && { qrAt }) };
}

/** The stored JSON, decompressed (a legacy `body` string is the JSON itself). */
const storedJson = (body: unknown): string =>
  typeof body === 'string' ? body : brotliDecompressSync(body as Uint8Array).toString('utf8');

/**
 * The body's fields as stored, to read them (an event's refund, a MED case), never to send: a
 * cut-out QR image stays an empty `qr_code_base64`, so nothing is rendered.
 */
export const storedFields = (body: string | Uint8Array): unknown => JSON.parse(storedJson(body));

/**
 * The JSON exactly as it was first sent, from an item's `body` and `qrAt` (a `body` string is
 * an item written before bodies were compressed: it is the JSON itself).
 */
export async function sentBody(item: Record<string, unknown>): Promise<string> {
  const json = storedJson(item.body);
  if (item.qrAt === undefined) return json;
  const qrAt = Number(item.qrAt);
  const brCode = chargeOf(JSON.parse(json))?.pix?.br_code;
  if (typeof brCode !== 'string') throw new Error('A body stored without its QR image has no BR Code');
  return json.slice(0, qrAt) + (await qrPngBase64(brCode)) + json.slice(qrAt);
}
