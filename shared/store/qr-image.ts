/**
 * The QR image of a BR Code is not stored: it is a deterministic function of the BR Code (the
 * same renderer and options give the same PNG bytes), so items keep the BR Code and readers
 * render the image (about 2.5 KB of base64, 5 KB with qrcode's default PNG options; stored, it
 * made every charge, idempotency record and charge event item 4–5 write units larger, in the
 * table and in each index projecting it). Rendering costs about 5 ms of CPU: a small in-process
 * cache keeps the recent ones. Changing the options changes the bytes (never the code) that a
 * replay or a webhook retry of a body stored before the change carries.
 */

import QRCode from 'qrcode';

/** Recent images (about 5 KB each): a Lambda serving one charge's reads renders it once. */
const CACHE_SIZE = 500;
const cache = new Map<string, Promise<string>>();

/**
 * 320 px, 8-bit grayscale, rows unfiltered, zlib level 6 with its default strategy: half the
 * bytes of qrcode's default (RGBA, every filter tried per row, level 9 with Huffman only) for
 * less CPU (docs/benchmarks.md, "The QR image").
 */
const pngOptions = (): QRCode.QRCodeToBufferOptions => ({
  type: 'png',
  errorCorrectionLevel: 'M',
  margin: 4, // the quiet zone ISO/IEC 18004 asks for: a merchant may place the image on any background
  width: 320,
  // pngjs options, passed through (and written to: a new object each time); @types/qrcode lists two.
  rendererOpts: { colorType: 0, filterType: 0, deflateLevel: 6, deflateStrategy: 0 } as {
    deflateLevel: number;
  },
});

/** The QR image of a BR Code, as the base64 PNG the Charge carries (rendered now). */
export const renderQrPngBase64 = async (brCode: string): Promise<string> =>
  (await QRCode.toBuffer(brCode, pngOptions())).toString('base64');

/** `renderQrPngBase64`, from the cache when it was rendered recently. */
export function qrPngBase64(brCode: string): Promise<string> {
  const cached = cache.get(brCode);
  if (cached) {
    // Most recently used last: the oldest is the first evicted.
    cache.delete(brCode);
    cache.set(brCode, cached);
    return cached;
  }
  const image = renderQrPngBase64(brCode);
  cache.set(brCode, image);
  image.catch(() => cache.delete(brCode));
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return image;
}
