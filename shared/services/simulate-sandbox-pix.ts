/**
 * `POST /v1/sandbox/charges/{id}/pay`: a Pix arrives for a test charge as the acquirer would
 * report it (the charge's amount unless another is given, an end-to-end id of the sandbox's
 * payer bank), and is settled as any Pix is (`receive-pix.ts`). It arrives when it is settled:
 * its time is taken once the charge is read (again after a lost race), so a Pix is never
 * returned as late with a time before the window it missed closed.
 */

import { NotFound } from '../domain/errors.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { newEndToEndId } from '../ids.ts';
import { sandboxProvider } from '../providers/sandbox.ts';
import { SANDBOX_ACQUIRER_ISPB } from '../providers/sandbox-cob.ts';
import { getAccountCached } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { type PixResult, receivePix } from './receive-pix.ts';

interface SandboxPix {
  amount?: number | undefined;
  payerDocument?: string | undefined;
  payerName?: string | undefined;
}

export async function simulateSandboxPix(
  scope: MerchantScope,
  chargeId: string,
  pix: SandboxPix,
  /** The request's arrival: the end-to-end id's time (the Pix itself is stamped when it is settled). */
  requestedAt = new Date(),
): Promise<PixResult & { endToEndId: string }> {
  // The charge gives the default amount, and settlement's first attempt (a retry reads it again).
  const [charge, account] = await Promise.all([
    getCharge(scope, chargeId),
    getAccountCached(scope.accountId),
  ]);
  if (!charge || !account) throw new NotFound('No such charge.');
  const endToEndId = newEndToEndId(SANDBOX_ACQUIRER_ISPB, requestedAt);
  const result = await receivePix(
    scope,
    chargeId,
    // Stamped once the charge is read, at each attempt: a charge that expired before the Pix was
    // settled expired before it arrived.
    () => ({
      endToEndId,
      amount: pix.amount ?? charge.amount,
      receivedAt: new Date().toISOString(),
      ...(pix.payerDocument !== undefined && { payerDocument: pix.payerDocument }),
      ...(pix.payerName !== undefined && { payerName: pix.payerName }),
    }),
    account.settings,
    sandboxProvider({ acquirerDown: false }),
    charge,
  );
  if (!result) throw new NotFound('No such charge.');
  return { ...result, endToEndId };
}
