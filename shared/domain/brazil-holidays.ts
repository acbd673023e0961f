/**
 * Brazil's national public holidays, from `date-holidays` (country BR, type `public` only:
 * Carnival and Corpus Christi are `bank`/`optional` there, Christmas Eve `optional`; Consciência
 * Negra, 20 November, is national since 2024). Its data covers every country (1.4 MB bundled, about
 * half a second to load), so the report use cases import this module lazily, on their first
 * request, as the receipt loads its PDF renderer.
 */

import Holidays from 'date-holidays';
import {
  businessDayWindow,
  type CalendarDate,
  isBusinessDay,
  type ReportWindow,
} from './business-calendar.ts';

const brazil = new Holidays('BR');
const holidaysByYear = new Map<number, ReadonlySet<CalendarDate>>();

/** A year's national holidays (`date-holidays` gives their local dates), computed once. */
function nationalHolidays(year: number): ReadonlySet<CalendarDate> {
  let dates = holidaysByYear.get(year);
  if (!dates) {
    dates = new Set(
      brazil
        .getHolidays(year)
        .filter((holiday) => holiday.type === 'public')
        .map((holiday) => holiday.date.slice(0, 10)),
    );
    holidaysByYear.set(year, dates);
  }
  return dates;
}

export const isNationalHoliday = (date: CalendarDate): boolean =>
  nationalHolidays(Number(date.slice(0, 4))).has(date);

/** The report window of the last `days` Brazilian business days in São Paulo, today included. */
export const brazilBusinessDayWindow = (days: number, nowMs: number): ReportWindow =>
  businessDayWindow(days, nowMs, isNationalHoliday);

/** Monday to Friday and not a national holiday. */
export const isBrazilBusinessDay = (date: CalendarDate): boolean => isBusinessDay(date, isNationalHoliday);
