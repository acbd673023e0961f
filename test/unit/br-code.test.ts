import { describe, expect, it } from 'vitest';
import {
  buildDynamicBrCode,
  crc16ccittFalse,
  type DynamicBrCodeInput,
  emvField,
  formatEmvAmount,
  normalizeEmvText,
} from '../../shared/domain/br-code.ts';
import { parseBrCode, parseTlv, tableCrc16 } from '../helpers/emv-parser.ts';

/** Examples from section 2 of the BCB "Manual de Padrões para Iniciação do Pix". */
const BCB_STATIC_EXAMPLE =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
const BCB_DYNAMIC_EXAMPLE =
  '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4';

const LOCATION = 'pix.example.com/qr/v2/cob/9d36b84fc70b478fb95c12729b90ca25';
const input = (overrides: Partial<DynamicBrCodeInput> = {}): DynamicBrCodeInput => ({
  locationUrl: LOCATION,
  merchantName: 'Padaria São João & Confeitaria Ltda',
  merchantCity: 'São José dos Campos',
  amount: 1050,
  ...overrides,
});

describe('crc16ccittFalse', () => {
  it('gives the CRC-16/CCITT-FALSE check value 29B1 for "123456789"', () => {
    expect(crc16ccittFalse('123456789')).toBe('29B1');
    expect(tableCrc16('123456789')).toBe('29B1');
  });

  it('reproduces the CRC of the BCB published static example', () => {
    expect(crc16ccittFalse(BCB_STATIC_EXAMPLE.slice(0, -4))).toBe('1D3D');
  });

  it('pads to 4 upper-case hex digits and agrees with the table-driven CRC', () => {
    for (const text of ['', 'a', 'São Paulo', '0002010102122676', 'x'.repeat(600)]) {
      const crc = crc16ccittFalse(text);
      expect(crc).toMatch(/^[0-9A-F]{4}$/);
      expect(crc).toBe(tableCrc16(text));
    }
    expect(crc16ccittFalse('')).toBe('FFFF');
  });
});

describe('normalizeEmvText', () => {
  it('strips diacritics, keeps printable ASCII and truncates', () => {
    expect(normalizeEmvText('Padaria São João & Confeitaria Ltda', 25)).toBe('Padaria Sao Joao & Confei');
    expect(normalizeEmvText('Açaí Ñandú Ü', 99)).toBe('Acai Nandu U');
  });

  it('drops non-ASCII symbols, collapses whitespace and trims', () => {
    expect(normalizeEmvText('  Café\u00a0☕  do\tZé 🚀 ', 99)).toBe('Cafe do Ze');
  });

  it('does not leave a trailing space after truncation', () => {
    expect(normalizeEmvText('Loja Boa Vista', 5)).toBe('Loja');
  });
});

describe('formatEmvAmount and emvField', () => {
  it('formats centavos with two decimals using integer arithmetic', () => {
    expect(formatEmvAmount(1050)).toBe('10.50');
    expect(formatEmvAmount(1)).toBe('0.01');
    expect(formatEmvAmount(100)).toBe('1.00');
    expect(formatEmvAmount(123456789)).toBe('1234567.89');
  });

  it('rejects zero, negative, fractional and over-long amounts', () => {
    for (const bad of [0, -1, 10.5, Number.NaN, 10_000_000_000_000]) {
      expect(() => formatEmvAmount(bad)).toThrow(RangeError);
    }
  });

  it('zero-pads the length and refuses empty or over-99 values', () => {
    expect(emvField('58', 'BR')).toBe('5802BR');
    expect(() => emvField('59', '')).toThrow(RangeError);
    expect(() => emvField('59', 'x'.repeat(100))).toThrow(RangeError);
  });
});

describe('buildDynamicBrCode', () => {
  it('reproduces byte for byte the BCB published dynamic example', () => {
    const code = buildDynamicBrCode({
      locationUrl: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    });
    expect(code).toBe(BCB_DYNAMIC_EXAMPLE);
  });

  it('produces a code the independent parser reads with every mandated field', () => {
    const code = buildDynamicBrCode(input());
    const parsed = parseBrCode(code);

    expect(parsed.crcValid).toBe(true);
    expect([...parsed.fields.keys()]).toEqual([
      '00',
      '01',
      '26',
      '52',
      '53',
      '54',
      '58',
      '59',
      '60',
      '62',
      '63',
    ]);
    expect(parsed.fields.get('00')).toBe('01');
    expect(parsed.fields.get('01')).toBe('12');
    expect(parsed.merchantAccount.get('00')).toBe('br.gov.bcb.pix');
    expect(parsed.merchantAccount.get('25')).toBe(LOCATION);
    expect(parsed.fields.get('52')).toBe('0000');
    expect(parsed.fields.get('53')).toBe('986');
    expect(parsed.fields.get('54')).toBe('10.50');
    expect(parsed.fields.get('58')).toBe('BR');
    expect(parsed.fields.get('59')).toBe('Padaria Sao Joao & Confei');
    expect(parsed.fields.get('60')).toBe('Sao Jose dos Ca');
    expect(parsed.additionalData.get('05')).toBe('***');
    expect(code.length).toBeLessThanOrEqual(512);
  });

  it('keeps name and city within 25/15 printable ASCII characters', () => {
    const parsed = parseBrCode(
      buildDynamicBrCode(input({ merchantName: 'Ç'.repeat(40), merchantCity: 'Ã'.repeat(40) })),
    );
    const name = parsed.fields.get('59') ?? '';
    const city = parsed.fields.get('60') ?? '';
    expect(name).toBe('C'.repeat(25));
    expect(city).toBe('A'.repeat(15));
    expect(name + city).toMatch(/^[\x20-\x7E]+$/);
  });

  it('omits field 54 when no amount is given and honours a custom MCC', () => {
    const parsed = parseBrCode(buildDynamicBrCode(input({ amount: undefined, mcc: '5812' })));
    expect(parsed.fields.has('54')).toBe(false);
    expect(parsed.fields.get('52')).toBe('5812');
    expect(parsed.crcValid).toBe(true);
  });

  it('accepts a location of exactly 77 characters and rejects 78', () => {
    const max = `pix.example.com/${'a'.repeat(77 - 16)}`;
    expect(max).toHaveLength(77);
    const parsed = parseBrCode(buildDynamicBrCode(input({ locationUrl: max })));
    expect(parsed.merchantAccount.get('25')).toBe(max);
    expect(parsed.fields.get('26')).toHaveLength(99);
    expect(() => buildDynamicBrCode(input({ locationUrl: `${max}a` }))).toThrow(/77/);
  });

  it('rejects a location with a scheme, an empty one, or non-ASCII', () => {
    expect(() => buildDynamicBrCode(input({ locationUrl: `https://${LOCATION}` }))).toThrow(/scheme/);
    expect(() => buildDynamicBrCode(input({ locationUrl: `HTTP://${LOCATION}` }))).toThrow(/scheme/);
    expect(() => buildDynamicBrCode(input({ locationUrl: '' }))).toThrow(RangeError);
    expect(() => buildDynamicBrCode(input({ locationUrl: 'pix.exemplo.com/cobrança/1' }))).toThrow(/ASCII/);
  });

  it('rejects a bad MCC, a bad amount, or a name/city that normalises to nothing', () => {
    expect(() => buildDynamicBrCode(input({ mcc: '58' }))).toThrow(/MCC/);
    expect(() => buildDynamicBrCode(input({ amount: 0 }))).toThrow(RangeError);
    expect(() => buildDynamicBrCode(input({ merchantName: '☕☕' }))).toThrow(/name/);
    expect(() => buildDynamicBrCode(input({ merchantCity: '   ' }))).toThrow(/city/);
  });

  it('is detected as corrupt by the independent parser when a character changes', () => {
    const code = buildDynamicBrCode(input());
    const tampered = code.replace('10.50', '99.50');
    expect(parseBrCode(tampered).crcValid).toBe(false);
  });
});

describe('independent EMV parser', () => {
  it('reads the BCB published examples and validates their CRCs', () => {
    expect(parseBrCode(BCB_STATIC_EXAMPLE).crcValid).toBe(true);
    const dynamic = parseBrCode(BCB_DYNAMIC_EXAMPLE);
    expect(dynamic.crcValid).toBe(true);
    expect(dynamic.merchantAccount.get('25')).toBe('pix.example.com/8b3da2f39a4140d1a91abd93113bd441');
  });

  it('throws on a truncated payload', () => {
    expect(() => parseTlv('5909abc')).toThrow(/past the end/);
  });
});
