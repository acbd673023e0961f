import { describe, expect, it } from 'vitest';
import { buildDynamicBrCode } from '../../shared/domain/br-code.ts';
import { qrPngBase64, renderQrPngBase64 } from '../../shared/store/qr-image.ts';
import { sentBody, storedBody } from '../../shared/store/stored-body.ts';
import { decodeQr } from '../helpers/qr.ts';

const brCode = buildDynamicBrCode({
  locationUrl: 'pay.example.com/pix/abcdefghijklmnopqrstuvwxyz012345',
  merchantName: 'Loja Exemplo',
  merchantCity: 'Sao Paulo',
  mcc: '5812',
  amount: 1050,
});

/** A Charge as the serializer shapes it, with a name and a metadata key that look like the image field. */
const chargeWith = (image: string) => ({
  id: 'ch_1',
  object: 'charge',
  customer: { name: '"qr_code_base64":"' },
  pix: { br_code: brCode, qr_code_url: 'https://pay.example.com/checkout/1/qr.png', qr_code_base64: image },
  metadata: { qr_code_base64: 'x', note: 'ação' },
});

describe('the QR image', () => {
  it('is rendered the same every time (what lets items leave it out)', async () => {
    const first = await renderQrPngBase64(brCode);

    expect(await renderQrPngBase64(brCode)).toBe(first);
    expect(await qrPngBase64(brCode)).toBe(first);
    expect(decodeQr(Buffer.from(first, 'base64'))).toBe(brCode);
  });
});

describe('a stored body', () => {
  it('gives back the exact JSON of a Charge, without storing its image', async () => {
    const charge = chargeWith(await renderQrPngBase64(brCode));
    const stored = storedBody(charge);

    expect(stored.qrAt).toBeGreaterThan(0);
    expect(stored.body.byteLength).toBeLessThan(700);
    expect(await sentBody(stored)).toBe(JSON.stringify(charge));
  });

  it('gives back the exact JSON of an event about a Charge', async () => {
    const event = {
      id: 'evt_1',
      type: 'charge.paid',
      data: { object: chargeWith(await renderQrPngBase64(brCode)) },
    };

    expect(await sentBody(storedBody(event))).toBe(JSON.stringify(event));
  });

  it('keeps a body without an image whole (legacy events, a refused charge)', async () => {
    const event = { event: 'payment.created', data: { transactionId: '1', amount: 1050 } };
    const stored = storedBody(event);

    expect(stored.qrAt).toBeUndefined();
    expect(await sentBody(stored)).toBe(JSON.stringify(event));
  });

  it('reads a body written before bodies were compressed', async () => {
    expect(await sentBody({ body: '{"a":1}' })).toBe('{"a":1}');
  });
});
