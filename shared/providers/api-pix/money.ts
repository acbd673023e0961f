/** API Pix writes money as a decimal string of reais with two places (`"10.50"`); the service counts centavos. */

/** 1050 → `"10.50"`. */
export const toDecimalString = (centavos: number): string =>
  `${Math.trunc(centavos / 100)}.${String(Math.abs(centavos % 100)).padStart(2, '0')}`;

/**
 * An API Pix time (RFC 3339, any offset: `2026-11-24T05:49:37+05:00`) as the service stores
 * times, in UTC (`…Z`): stored times are compared as strings, which only works in one offset.
 */
export function toUtcIso(time: string): string {
  // RFC 3339 allows a leap second (`23:59:60Z`), which Date.parse refuses: the next second's start.
  const leap = /^(.*[T ]\d\d:\d\d:)60((?:\.\d+)?(?:[Zz]|[+-]\d\d:?\d\d))$/i.exec(time);
  const ms = leap ? Date.parse(`${leap[1]}59${leap[2]}`) + 1000 : Date.parse(time);
  if (Number.isNaN(ms)) throw new Error(`Not an API Pix time: ${JSON.stringify(time)}`);
  return new Date(ms).toISOString();
}

/** `"10.50"` → 1050; anything but the standard's `\d{1,10}\.\d{2}` throws (a PSP answering it is broken). */
export function fromDecimalString(decimal: string): number {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(decimal);
  if (!match) throw new Error(`Not an API Pix amount: ${JSON.stringify(decimal)}`);
  return Number(match[1]) * 100 + Number(match[2]);
}
