import type { ChargeRecord } from '#shared/domain/charges.ts';
import { NotFound } from '#shared/domain/errors.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { getChargeByRawId } from '#shared/store/charges.ts';

/** Public pages address a charge by its raw id only (the checkout URL omits `ch_`), or by its location token. */
export async function loadPublicCharge(
  id: string | undefined,
  parse: (id: string) => string | undefined = (raw) =>
    raw.startsWith('ch_') ? undefined : parseChargeId(raw),
): Promise<ChargeRecord> {
  const rawId = id === undefined ? undefined : parse(id);
  const charge = rawId === undefined ? undefined : await getChargeByRawId(rawId);
  if (!charge) throw new NotFound('No such charge.');
  return charge;
}

/** Public documents change with the charge: never cached by intermediaries. */
export const noStore = { 'Cache-Control': 'no-store' };
