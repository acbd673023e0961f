/**
 * ISO 8601 dates and date-times as the API reads them in queries and bodies: a time without an
 * offset is UTC, whatever the host's time zone (`Date.parse` would read it as local time).
 */
import * as v from 'valibot';

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or date-time as an inclusive bound in milliseconds, or `undefined` when it is
 * not one (`2026-02-30` included). A date alone is its whole UTC day (a start at 00:00:00.000,
 * an end at 23:59:59.999); a time without offset is UTC. Digits below the millisecond round
 * inwards (a start up, an end down), so the bound includes exactly what it names.
 */
export function parseIsoBound(value: string, side: 'start' | 'end'): number | undefined {
  const m = ISO_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((n) => Number(m[n] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  const offset = m[8];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  if (at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return undefined;
  at.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  let ms = at.getTime();
  if (side === 'start' && /[1-9]/.test(fraction.slice(3))) ms += 1;
  if (offset !== undefined && offset !== 'Z') {
    const [, sign, hh, mm] = /^([+-])(\d{2}):?(\d{2})$/.exec(offset) ?? [];
    if (Number(hh) > 23 || Number(mm) > 59) return undefined;
    ms -= (sign === '-' ? -1 : 1) * (Number(hh) * 60 + Number(mm)) * 60_000;
  }
  if (m[4] === undefined && side === 'end') ms += 86_400_000 - 1;
  return ms;
}

/** An inclusive bound (`start` or `end`): a real calendar date or date-time; a date alone covers its whole day. */
export const isoBound = (side: 'start' | 'end') =>
  v.pipe(
    v.string(),
    v.check(
      (value) => parseIsoBound(value, side) !== undefined,
      'Must be an ISO 8601 date (2026-05-01) or date-time (2026-05-01T13:45:00Z)',
    ),
    v.transform((value) => parseIsoBound(value, side) as number),
  );
