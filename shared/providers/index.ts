import type { Account } from '../domain/account-settings.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import type { PixProvider } from './provider.ts';
import { type SandboxCobReader, sandboxProvider } from './sandbox.ts';

export interface ProviderContext {
  /**
   * Where the sandbox reads what it holds for a txid (it keeps no state; a live acquirer holds
   * its own and ignores this). Only `getCob` needs it.
   */
  sandboxCobs?: SandboxCobReader;
}

/**
 * The acquirer for a charge: test keys always use the sandbox; live keys need a configured
 * acquirer (the live adapter comes later), so until then there is none and creation is 422.
 */
export function providerFor(
  mode: KeyMode,
  account: Account,
  context: ProviderContext = {},
): PixProvider | undefined {
  if (mode === 'test')
    return sandboxProvider({
      acquirerDown: account.sandboxAcquirerDown === true,
      payouts: account.sandboxPayoutsUnsupported !== true,
      ...(context.sandboxCobs !== undefined && { readCob: context.sandboxCobs }),
    });
  return undefined;
}
