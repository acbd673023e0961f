/** Reading QR images back in tests, with libraries independent of the service's renderer. */

import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

/** jsqr is CommonJS typed with `export default`: under nodenext its default import is the function itself. */
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** The text a PNG's QR code encodes, if it can be read. */
export function decodeQr(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}
