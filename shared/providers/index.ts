import type { Account } from '../domain/account-settings.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import type { PixProvider } from './provider.ts';
import { sandboxProvider } from './sandbox.ts';

/**
 * The acquirer for a charge: test keys always use the sandbox; live keys need a configured
 * acquirer (the live adapter comes later), so until then there is none and creation is 422.
 */
export function providerFor(mode: KeyMode, account: Account): PixProvider | undefined {
  if (mode === 'test')
    return sandboxProvider({
      acquirerDown: account.sandboxAcquirerDown === true,
      payouts: account.sandboxPayoutsUnsupported !== true,
    });
  return undefined;
}
