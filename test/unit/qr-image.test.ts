/** The charge's QR image (shared/store/qr-image.ts), read back with libraries independent of its renderer. */

import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { renderQrPngBase64 } from '../../shared/store/qr-image.ts';
import { decodeQr } from '../helpers/qr.ts';

const brCode =
  '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cob/9d36b84fc70b478fb95c12729b90ca25520400005303986540510.505802BR5910Demo Store6009SAO PAULO62070503***6304ABCD';

describe('the QR image', () => {
  it('encodes the BR Code, inside the quiet zone of 4 modules ISO/IEC 18004 asks for', async () => {
    const png = Buffer.from(await renderQrPngBase64(brCode), 'base64');
    expect(decodeQr(png)).toBe(brCode);

    const image = PNG.sync.read(png);
    const dark = (x: number, y: number) => (image.data[(y * image.width + x) * 4] ?? 255) < 128;
    // The top-left finder pattern's first row: its first dark pixel, and its run of 7 dark modules.
    const firstDark =
      [...Array(image.width * image.height).keys()].find((n) =>
        dark(n % image.width, Math.floor(n / image.width)),
      ) ?? 0;
    const [x0, y0] = [firstDark % image.width, Math.floor(firstDark / image.width)];
    let run = 0;
    while (dark(x0 + run, y0)) run += 1;
    const moduleSize = run / 7;
    expect(x0 / moduleSize).toBeGreaterThanOrEqual(4);
    expect(y0 / moduleSize).toBeGreaterThanOrEqual(4);
  });
});
