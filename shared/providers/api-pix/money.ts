/** API Pix writes money as a decimal string of reais with two places (`"10.50"`); the service counts centavos. */

/** 1050 → `"10.50"`. */
export const toDecimalString = (centavos: number): string =>
  `${Math.trunc(centavos / 100)}.${String(Math.abs(centavos % 100)).padStart(2, '0')}`;

/** `"10.50"` → 1050; anything but the standard's `\d{1,10}\.\d{2}` throws (a PSP answering it is broken). */
export function fromDecimalString(decimal: string): number {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(decimal);
  if (!match) throw new Error(`Not an API Pix amount: ${JSON.stringify(decimal)}`);
  return Number(match[1]) * 100 + Number(match[2]);
}
