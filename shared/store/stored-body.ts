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

/** The JSON of `value`, with the Charge's QR image cut out at `qrAt` when it carries one. */
function withoutQrImage(value: unknown): { json: string; qrAt?: number } {
  const json = JSON.stringify(value);
  const image = chargeOf(value)?.pix?.qr_code_base64;
  const at = typeof image === 'string' ? json.indexOf(`${QR_FIELD}${image}"`) : -1;
  if (typeof image !== 'string' || at === -1) return { json };
  const qrAt = at + QR_FIELD.length;
  return { json: json.slice(0, qrAt) + json.slice(qrAt + image.length), qrAt };
}

const compressed = (json: string): Uint8Array =>
  brotliCompressSync(json, {
    params: {
      // Quality 5, not the default 11: 30× less CPU (0.03 against 1 ms a body, on the request
      // path of every pay) for bodies about 8 % larger, still well under one write unit
      // (docs/benchmarks.md, "Webhook pipeline: two node costs removed").
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });

/** The attributes of a stored body: `body` (Binary), and `qrAt` where the image was cut out. */
export function storedBody(value: unknown): { body: Uint8Array; qrAt?: number } {
  const { json, qrAt } = withoutQrImage(value);
  return { body: compressed(json), ...(qrAt !== undefined && { qrAt }) };
}

/**
 * Several bodies stored as one (the events of one state change, outbox items): their JSON texts
 * joined by newlines, which JSON text never holds raw, and compressed together, so what they
 * share is stored once. `qrAts` holds each one's cut (-1: none) when any has one.
 */
export function storedBodies(values: readonly unknown[]): { bodies: Uint8Array; qrAts?: number[] } {
  const cut = values.map(withoutQrImage);
  return {
    bodies: compressed(cut.map(({ json }) => json).join('\n')),
    ...(cut.some(({ qrAt }) => qrAt !== undefined) && { qrAts: cut.map(({ qrAt }) => qrAt ?? -1) }),
  };
}

/** The stored JSON, decompressed (a legacy `body` string is the JSON itself). */
const storedJson = (body: unknown): string =>
  typeof body === 'string' ? body : brotliDecompressSync(body as Uint8Array).toString('utf8');

/** The JSON with its QR image rendered back in at `qrAt` (`undefined`: nothing was cut out). */
async function withQrImage(json: string, qrAt: number | undefined): Promise<string> {
  if (qrAt === undefined) return json;
  const brCode = chargeOf(JSON.parse(json))?.pix?.br_code;
  if (typeof brCode !== 'string') throw new Error('A body stored without its QR image has no BR Code');
  return json.slice(0, qrAt) + (await qrPngBase64(brCode)) + json.slice(qrAt);
}

/**
 * The JSON exactly as it was first sent, from an item's `body` and `qrAt` (a `body` string is
 * an item written before bodies were compressed: it is the JSON itself).
 */
export const sentBody = (item: Record<string, unknown>): Promise<string> =>
  withQrImage(storedJson(item.body), item.qrAt === undefined ? undefined : Number(item.qrAt));

/** Body `index` of `storedBodies`' attributes exactly as first sent (only its own image is rendered). */
export function sentBodyAt(item: Record<string, unknown>, index: number): Promise<string | undefined> {
  const json = storedJson(item.bodies).split('\n')[index];
  if (json === undefined) return Promise.resolve(undefined);
  const qrAt = Number((item.qrAts as unknown[] | undefined)?.[index] ?? -1);
  return withQrImage(json, qrAt === -1 ? undefined : qrAt);
}

/**
 * Every body of `storedBodies`' `bodies`, to read their fields (an event's refund, a MED case),
 * never to send: a cut-out QR image stays an empty `qr_code_base64`, so nothing is rendered.
 */
export const storedFieldsOfEach = (bodies: Uint8Array): unknown[] =>
  storedJson(bodies)
    .split('\n')
    .map((json) => JSON.parse(json) as unknown);
