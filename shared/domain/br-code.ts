/**
 * Dynamic Pix BR Code (EMV QRCPS merchant-presented mode) as returned in `pix.br_code`.
 *
 * A dynamic code carries no txid and no amount authority: it points (field 26, sub-field 25) at a
 * location URL from which the payer's bank fetches the signed charge payload. The code itself is
 * a flat list of TLV fields `ID(2) + LENGTH(2, decimal) + VALUE`, closed by a CRC16 (field 63).
 * Everything here is pure string work so it can be unit-tested and reused by the fake PSP.
 */

/** Globally unique identifier of the Pix arrangement in template 26, sub-field 00. */
const PIX_GUI = 'br.gov.bcb.pix';
/** Maximum length of the location URL (26-25) allowed by the BR Code manual. */
const MAX_LOCATION_LENGTH = 77;
/** EMV limits on the merchant name (59) and city (60). */
const MAX_MERCHANT_NAME_LENGTH = 25;
const MAX_MERCHANT_CITY_LENGTH = 15;
/** Maximum length of a whole EMV MPM payload. */
const MAX_BR_CODE_LENGTH = 512;
/** Merchant category code used when the merchant has none ("0000" is what Pix PSPs send). */
const DEFAULT_MCC = '0000';

/** Field 54 value is at most 13 characters (e.g. "99999999999.99"). */
const MAX_AMOUNT_LENGTH = 13;
/** Two-digit length prefix: no single field value may exceed 99 characters. */
const MAX_FIELD_VALUE_LENGTH = 99;
const CRC_FIELD_PREFIX = '6304';
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;
const NON_PRINTABLE_ASCII = /[^\x20-\x7E]/g;
const COMBINING_MARKS = /\p{M}/gu;
const MCC_PATTERN = /^\d{4}$/;

/** Inputs of {@link buildDynamicBrCode}. */
export interface DynamicBrCodeInput {
  /** Location URL without scheme, e.g. `pix.example.com/qr/v2/cobv/9d36b84f…`; at most 77 chars. */
  locationUrl: string;
  /** Receiver's name; normalised to ASCII and truncated to 25 characters. */
  merchantName: string;
  /** Receiver's city; normalised to ASCII and truncated to 15 characters. */
  merchantCity: string;
  /** Amount in centavos. Omit to leave field 54 out (payer's app then uses the payload's value). */
  amount?: number;
  /** Four-digit merchant category code; defaults to {@link DEFAULT_MCC}. */
  mcc?: string;
}

/**
 * CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0) over the UTF-8 bytes of
 * `input`, as 4 upper-case hex digits. This is the checksum the BR Code manual mandates for
 * field 63; the check value of "123456789" is "29B1". Bitwise on purpose: the code is short and
 * the test helper uses an independent table-driven variant.
 */
export function crc16ccittFalse(input: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(input)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Makes free text safe for an EMV field: strips diacritics (NFD, then drop combining marks, so
 * "São João" → "Sao Joao"), drops anything outside printable ASCII, collapses whitespace, trims
 * and truncates to `maxLength`. Payers' banking apps reject or garble non-ASCII names, and the
 * length prefix counts characters, so only single-byte characters may be used.
 */
export function normalizeEmvText(text: string, maxLength: number): string {
  return text
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .replace(/\s+/g, ' ')
    .replace(NON_PRINTABLE_ASCII, '')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, maxLength)
    .trimEnd();
}

/**
 * One EMV TLV field: 2-character id, 2-digit decimal length, value. Throws when the value cannot
 * be length-prefixed (empty or longer than 99), because a wrong length corrupts the whole code.
 */
export function emvField(id: string, value: string): string {
  if (value.length === 0 || value.length > MAX_FIELD_VALUE_LENGTH) {
    throw new RangeError(
      `EMV field ${id} must be 1-${MAX_FIELD_VALUE_LENGTH} characters, got ${value.length}`,
    );
  }
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * Formats an integer amount in centavos as the decimal string field 54 expects (1050 → "10.50").
 * Integer arithmetic only, so there is no floating-point rounding on money.
 */
export function formatEmvAmount(centavos: number): string {
  if (!Number.isSafeInteger(centavos) || centavos <= 0) {
    throw new RangeError(`Amount must be a positive integer number of centavos, got ${centavos}`);
  }
  const reais = Math.floor(centavos / 100);
  const cents = String(centavos % 100).padStart(2, '0');
  const formatted = `${reais}.${cents}`;
  if (formatted.length > MAX_AMOUNT_LENGTH) {
    throw new RangeError(`Amount ${formatted} exceeds ${MAX_AMOUNT_LENGTH} characters`);
  }
  return formatted;
}

/**
 * Validates the location URL for sub-field 26-25: the manual forbids the scheme (the payer's bank
 * always uses https) and caps it at 77 characters; non-ASCII would break the length prefix.
 */
function assertLocationUrl(locationUrl: string): void {
  if (URL_SCHEME.test(locationUrl)) {
    throw new RangeError('Location URL must not include a scheme (drop "https://")');
  }
  if (locationUrl.length === 0 || locationUrl.length > MAX_LOCATION_LENGTH) {
    throw new RangeError(
      `Location URL must be 1-${MAX_LOCATION_LENGTH} characters, got ${locationUrl.length}`,
    );
  }
  if (!PRINTABLE_ASCII.test(locationUrl)) {
    throw new RangeError('Location URL must be printable ASCII');
  }
}

/** Normalises a mandatory text field and refuses a value that normalises to nothing. */
function requiredEmvText(label: string, text: string, maxLength: number): string {
  const normalized = normalizeEmvText(text, maxLength);
  if (normalized.length === 0) {
    throw new RangeError(`${label} is empty after ASCII normalisation`);
  }
  return normalized;
}

/**
 * Builds the copy-and-paste payload of a dynamic, single-use Pix charge (point of initiation 12).
 * Fields, in order: 00 format, 01 initiation, 26 merchant account (GUI + location), 52 MCC,
 * 53 currency (986, BRL), 54 amount (only when given), 58 country, 59 name, 60 city,
 * 62 additional data (reference label `***`: the txid travels in the fetched payload), 63 CRC.
 * Throws `RangeError` on any input that would produce an invalid code rather than emitting one
 * that payers' banks would reject.
 */
export function buildDynamicBrCode(input: DynamicBrCodeInput): string {
  assertLocationUrl(input.locationUrl);
  const mcc = input.mcc ?? DEFAULT_MCC;
  if (!MCC_PATTERN.test(mcc)) {
    throw new RangeError(`MCC must be 4 digits, got "${mcc}"`);
  }

  const body = [
    emvField('00', '01'),
    emvField('01', '12'),
    emvField('26', emvField('00', PIX_GUI) + emvField('25', input.locationUrl)),
    emvField('52', mcc),
    emvField('53', '986'),
    input.amount === undefined ? '' : emvField('54', formatEmvAmount(input.amount)),
    emvField('58', 'BR'),
    emvField('59', requiredEmvText('Merchant name', input.merchantName, MAX_MERCHANT_NAME_LENGTH)),
    emvField('60', requiredEmvText('Merchant city', input.merchantCity, MAX_MERCHANT_CITY_LENGTH)),
    emvField('62', emvField('05', '***')),
    CRC_FIELD_PREFIX,
  ].join('');

  const payload = body + crc16ccittFalse(body);
  if (payload.length > MAX_BR_CODE_LENGTH) {
    throw new RangeError(`BR Code is ${payload.length} characters, above ${MAX_BR_CODE_LENGTH}`);
  }
  return payload;
}
