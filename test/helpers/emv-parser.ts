/**
 * Test-only EMV MPM (BR Code) reader, written from the EMV QRCPS / BCB BR Code manual and kept
 * independent of `shared/domain/br-code.ts` so the builder is checked against a second
 * implementation instead of against itself. Its CRC16 is table-driven (the module's is bitwise).
 */

/** One parsed BR Code: top-level fields plus the sub-fields of templates 26 and 62. */
export interface ParsedEmv {
  /** Top-level fields by id, in payload order (ids are unique at the top level). */
  fields: Map<string, string>;
  /** Sub-fields of template 26 (merchant account information, Pix). */
  merchantAccount: Map<string, string>;
  /** Sub-fields of template 62 (additional data field). */
  additionalData: Map<string, string>;
  /** Whether field 63 equals the CRC of everything before it including "6304". */
  crcValid: boolean;
  /** The CRC this reader computed. */
  computedCrc: string;
}

/** CRC-16/CCITT-FALSE lookup table (poly 0x1021), one entry per high byte. */
const CRC_TABLE: readonly number[] = Array.from({ length: 256 }, (_, index) => {
  let value = index << 8;
  for (let bit = 0; bit < 8; bit++) {
    value = (value & 0x8000 ? (value << 1) ^ 0x1021 : value << 1) & 0xffff;
  }
  return value;
});

/** Table-driven CRC-16/CCITT-FALSE (init 0xFFFF, no reflection, xorout 0) over UTF-8 bytes. */
export function tableCrc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = ((crc << 8) & 0xffff) ^ (CRC_TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Splits a TLV string into [id, value] pairs. Throws on truncated input, non-numeric lengths or
 * duplicate ids, so a malformed payload fails the test loudly.
 */
export function parseTlv(payload: string): Map<string, string> {
  const fields = new Map<string, string>();
  let cursor = 0;
  while (cursor < payload.length) {
    const id = payload.substring(cursor, cursor + 2);
    const lengthText = payload.substring(cursor + 2, cursor + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(lengthText)) {
      throw new Error(`Bad TLV header at ${cursor}: "${id}${lengthText}"`);
    }
    const length = Number.parseInt(lengthText, 10);
    const start = cursor + 4;
    const end = start + length;
    if (end > payload.length) {
      throw new Error(`Field ${id} at ${cursor} claims ${length} characters past the end`);
    }
    if (fields.has(id)) throw new Error(`Duplicate field ${id}`);
    fields.set(id, payload.substring(start, end));
    cursor = end;
  }
  return fields;
}

/** Parses a whole BR Code, including templates 26 and 62, and checks the trailing CRC. */
export function parseBrCode(payload: string): ParsedEmv {
  const fields = parseTlv(payload);
  const ids = [...fields.keys()];
  if (ids[0] !== '00') throw new Error('Field 00 must come first');
  if (ids.at(-1) !== '63') throw new Error('Field 63 (CRC) must come last');
  const crcIndex = payload.length - 4;
  if (payload.substring(crcIndex - 4, crcIndex) !== '6304') throw new Error('CRC field header is not 6304');
  const computedCrc = tableCrc16(payload.substring(0, crcIndex));
  return {
    fields,
    merchantAccount: parseTlv(fields.get('26') ?? ''),
    additionalData: parseTlv(fields.get('62') ?? ''),
    crcValid: fields.get('63') === computedCrc,
    computedCrc,
  };
}
