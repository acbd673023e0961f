/**
 * Brazilian taxpayer ids (CPF for people, CNPJ for companies): pure check-digit validation.
 *
 * The payer lock (`expected_payer_tax_id`) and `customer.document` must be rejected with a 400 when
 * the check digits are wrong, before any provider is called. The CNPJ rule here is the
 * alphanumeric one of IN RFB 2229/2024 (issued from July 2026, accepted by API Pix 2.9.0 as
 * `^[0-9A-Z]{14}$`); classic all-digit CNPJs are the special case where every character is a digit.
 */

/** The kinds of tax id the service accepts. */
type TaxIdKind = 'cpf' | 'cnpj';

const CPF_PATTERN = /^\d{11}$/;
/** 12 alphanumeric base characters (upper case) followed by 2 numeric check digits. */
const CNPJ_PATTERN = /^[0-9A-Z]{12}\d{2}$/;

const CPF_FIRST_WEIGHTS = [10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CPF_SECOND_WEIGHTS = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_FIRST_WEIGHTS = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const CNPJ_SECOND_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** Separators people type in formatted ids (`529.982.247-25`, `12.ABC.345/01DE-35`) plus any whitespace. */
const SEPARATORS = /[.\-/\s]/g;

/**
 * Value of one id character in the weighted sum: its char code minus 48, so '0'..'9' → 0..9 and
 * 'A'..'Z' → 17..42 (IN RFB 2229/2024). For digits this is the classic digit value.
 */
const charValue = (char: string): number => char.charCodeAt(0) - 48;

/**
 * Mod-11 check digit shared by CPF and CNPJ: 11 − (weighted sum mod 11), or 0 when the remainder
 * is below 2. Only the first `weights.length` characters of `base` take part.
 */
function mod11CheckDigit(base: string, weights: readonly number[]): number {
  let sum = 0;
  for (const [index, weight] of weights.entries()) {
    sum += charValue(base.charAt(index)) * weight;
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** True for sequences like `11111111111`: they pass the mod-11 arithmetic but are never issued. */
const isRepeatedChar = (value: string): boolean => [...value].every((char) => char === value[0]);

/** Compares the two trailing check digits of `value` with the ones computed from its body. */
function hasValidCheckDigits(
  value: string,
  firstWeights: readonly number[],
  secondWeights: readonly number[],
): boolean {
  const first = mod11CheckDigit(value, firstWeights);
  const second = mod11CheckDigit(value.slice(0, firstWeights.length) + String(first), secondWeights);
  return value.slice(-2) === `${first}${second}`;
}

/**
 * Whether `value` is a valid CPF: exactly 11 digits, no formatting, correct check digits and not a
 * single repeated digit. Callers with user input normalise first with {@link normalizeTaxId}, so
 * a formatted value is never silently accepted where the API contract asks for digits only.
 */
export function isValidCpf(value: string): boolean {
  return (
    CPF_PATTERN.test(value) &&
    !isRepeatedChar(value) &&
    hasValidCheckDigits(value, CPF_FIRST_WEIGHTS, CPF_SECOND_WEIGHTS)
  );
}

/**
 * Whether `value` is a valid CNPJ, numeric or alphanumeric (IN RFB 2229/2024): 12 characters
 * `[0-9A-Z]` then 2 numeric check digits, with correct check digits and not a single repeated
 * character. Upper case only and no formatting; normalise user input with {@link normalizeTaxId}.
 */
export function isValidCnpj(value: string): boolean {
  return (
    CNPJ_PATTERN.test(value) &&
    !isRepeatedChar(value) &&
    hasValidCheckDigits(value, CNPJ_FIRST_WEIGHTS, CNPJ_SECOND_WEIGHTS)
  );
}

/**
 * Canonical storage/comparison form of a tax id: separators (`.`, `-`, `/`) and whitespace
 * removed, letters upper-cased. Comparing normalised values lets `529.982.247-25` match
 * `52998224725` in the payer lock.
 */
export const normalizeTaxId = (value: string): string => value.replace(SEPARATORS, '').toUpperCase();

/**
 * Kind of a valid tax id after normalisation, or `undefined` when it is neither a valid CPF nor a
 * valid CNPJ. The two formats have different lengths (11 and 14), so the answer is unambiguous.
 */
export function classifyTaxId(value: string): TaxIdKind | undefined {
  const normalized = normalizeTaxId(value);
  if (isValidCpf(normalized)) return 'cpf';
  if (isValidCnpj(normalized)) return 'cnpj';
  return undefined;
}
