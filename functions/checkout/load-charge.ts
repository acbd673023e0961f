import type { ChargeRecord } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { getChargeByRawId } from '#shared/store/charges.ts';

/** Public pages address a charge by its raw id only (the checkout URL omits `ch_`). */
export async function loadPublicCharge(id: string | undefined): Promise<ChargeRecord> {
  const charge = id && /^[0-9a-f]{24}$/.test(id) ? await getChargeByRawId(id) : undefined;
  if (!charge) throw new NotFound('No such charge.');
  return charge;
}

/** Public documents change with the charge: never cached by intermediaries. */
export const noStore = { 'Cache-Control': 'no-store' };
