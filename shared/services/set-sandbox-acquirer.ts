/**
 * `POST /v1/sandbox/acquirer`: takes the test mode's simulated acquirer down (creates answer
 * 503) or up, and makes it offer Pix-out or not (cashout refunds answer `REFUND_NOT_SUPPORTED`
 * without). An absent field keeps its setting; the answer is the setting now.
 */

import { getAccount, setSandboxAcquirer as storeBehaviour } from '../store/accounts.ts';

interface SandboxAcquirer {
  down: boolean;
  payoutsUnsupported: boolean;
}

export async function setSandboxAcquirer(
  accountId: string,
  change: Partial<SandboxAcquirer>,
): Promise<SandboxAcquirer> {
  await storeBehaviour(accountId, change);
  const account = await getAccount(accountId);
  return {
    down: account?.sandboxAcquirerDown === true,
    payoutsUnsupported: account?.sandboxPayoutsUnsupported === true,
  };
}
