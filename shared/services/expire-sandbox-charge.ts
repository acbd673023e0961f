/**
 * `POST /v1/sandbox/charges/{id}/expire`: a test charge's window closes now (`expireCharge`
 * with `force`). 404 for no such charge, 400 for one no longer awaiting payment.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { getCharge } from '../store/charges.ts';
import { expireCharge } from './expire-charge.ts';

export async function expireSandboxCharge(
  scope: MerchantScope,
  chargeId: string,
  now = new Date(),
): Promise<ChargeRecord> {
  const expired = await expireCharge(scope, chargeId, now, true);
  if (expired) return expired;
  // Not expired: tell a missing charge from one that is no longer awaiting payment.
  if (!(await getCharge(scope, chargeId))) throw new NotFound('No such charge.');
  throw new InvalidInput('Only a pending charge can expire.', { param: 'id' });
}
