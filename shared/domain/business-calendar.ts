/**
 * The reporting calendar (Part 2, stats and metrics): calendar days in America/Sao_Paulo, and
 * business days = Monday–Friday minus Brazil's national public holidays. The zone's rules come
 * from `@date-fns/tz` (the IANA database through `Intl`), the holidays from `date-holidays`
 * (`brazil-holidays.ts`, handed in as `isHoliday`: its data of every country weighs 1.4 MB, so
 * only the report routes load it, never the outbox, which needs the São Paulo day alone). Neither
 * calendar is written by hand. Pure: the clock and the holidays are parameters.
 */

import { TZDate } from '@date-fns/tz';

export const REPORT_TIME_ZONE = 'America/Sao_Paulo';

/**
 * No window reaches before Pix went live (16 November 2020): no payment can be older, and it
 * bounds the business-day walk of a `days` without an upper limit (metrics) to a few thousand days.
 */
export const REPORTING_EPOCH = '2020-11-16';

const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD`. */
export type CalendarDate = string;

/** The São Paulo calendar date of an instant. */
export function saoPauloDate(ms: number): CalendarDate {
  const at = new TZDate(ms, REPORT_TIME_ZONE);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** The instant a São Paulo calendar date starts. */
export function saoPauloDayStart(date: CalendarDate): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new TZDate(y, m - 1, d, REPORT_TIME_ZONE).getTime();
}

/** Civil-date arithmetic (no zone: a calendar date is the same everywhere). */
const dateMs = (date: CalendarDate): number => Date.parse(`${date}T00:00:00Z`);
export const addDays = (date: CalendarDate, days: number): CalendarDate =>
  new Date(dateMs(date) + days * DAY_MS).toISOString().slice(0, 10);

/** Whether a calendar date is a holiday (`brazil-holidays.ts`: national ones). */
type IsHoliday = (date: CalendarDate) => boolean;

export function isBusinessDay(date: CalendarDate, isHoliday: IsHoliday): boolean {
  const weekday = new Date(dateMs(date)).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isHoliday(date);
}

/** A report's window: every calendar day from `from` to `to` (today in São Paulo), inclusive. */
export interface ReportWindow {
  from: CalendarDate;
  to: CalendarDate;
  /** The window's calendar days, oldest first. */
  dates: CalendarDate[];
}

/**
 * The window of the last `businessDays` business days, today included: it ends today (São Paulo)
 * and starts on the `businessDays`-th most recent business day, today counting as one when it is
 * a business day. The weekends and holidays inside are part of the window (its totals cover every
 * calendar day of it); a window on a Saturday with `days=1` runs from Friday to Saturday. It never
 * starts before `REPORTING_EPOCH`.
 */
export function businessDayWindow(businessDays: number, nowMs: number, isHoliday: IsHoliday): ReportWindow {
  const to = saoPauloDate(nowMs);
  let from = to;
  let counted = isBusinessDay(to, isHoliday) ? 1 : 0;
  while (counted < businessDays && from > REPORTING_EPOCH) {
    from = addDays(from, -1);
    if (isBusinessDay(from, isHoliday)) counted++;
  }
  const dates: CalendarDate[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date);
  return { from, to, dates };
}
