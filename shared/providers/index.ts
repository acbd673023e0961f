import type { Account } from '../domain/account-settings.ts';
import type { AcquirerSettings } from '../domain/acquirer.ts';
import type { Mode as KeyMode } from '../domain/scope.ts';
import { getAcquirerSecret } from './acquirer-secrets.ts';
import { type ApiPixProvider, apiPixProvider } from './api-pix/adapter.ts';
import { type PixProvider, ProviderUnavailableError } from './provider.ts';
import { type SandboxCobReader, sandboxProvider } from './sandbox.ts';

interface ProviderContext {
  /**
   * Where the sandbox reads what it holds for a txid (it keeps no state; a live acquirer holds
   * its own and ignores this). Only `getCob` needs it.
   */
  sandboxCobs?: SandboxCobReader;
}

/** One adapter per account and configuration (its HTTPS agent keeps connections to the PSP). */
const adapters = new Map<string, { configuredAt: string; adapter: Promise<ApiPixProvider> }>();

async function buildAdapter(accountId: string, acquirer: AcquirerSettings): Promise<ApiPixProvider> {
  let secret: Awaited<ReturnType<typeof getAcquirerSecret>>;
  try {
    secret = await getAcquirerSecret(accountId);
  } catch {
    // Never the secret's text or path in an answer: the acquirer is not reachable as configured.
    throw new ProviderUnavailableError('The acquirer credentials could not be read.');
  }
  return apiPixProvider({
    ...secret,
    baseUrl: acquirer.baseUrl,
    tokenUrl: acquirer.tokenUrl,
    pixKey: acquirer.pixKey,
    ...(acquirer.scopes !== undefined && { scopes: acquirer.scopes }),
  });
}

function adapterOf(accountId: string, acquirer: AcquirerSettings): Promise<ApiPixProvider> {
  const hit = adapters.get(accountId);
  if (hit && hit.configuredAt === acquirer.configuredAt) return hit.adapter;
  const adapter = buildAdapter(accountId, acquirer);
  adapters.set(accountId, { configuredAt: acquirer.configuredAt, adapter });
  adapter.catch(() => adapters.delete(accountId));
  return adapter;
}

/**
 * The account's live acquirer through the API Pix adapter, its credentials read (and cached) on
 * the first call that needs them, so choosing the provider stays synchronous and free.
 */
function liveProvider(accountId: string, acquirer: AcquirerSettings): PixProvider {
  const adapter = () => adapterOf(accountId, acquirer);
  return {
    name: 'api-pix',
    createCob: async (input) => (await adapter()).createCob(input),
    getCob: async (txid) => (await adapter()).getCob(txid),
    cancelCob: async (txid) => (await adapter()).cancelCob(txid),
    requestDevolution: async (input) => (await adapter()).requestDevolution(input),
    getDevolution: async (input) => (await adapter()).getDevolution(input),
    getPix: async (endToEndId) => (await adapter()).getPix(endToEndId),
    listPix: async (query) => (await adapter()).listPix(query),
    listInfractions: async (query) => (await adapter()).listInfractions(query),
    registerWebhook: async (url) => (await adapter()).registerWebhook(url),
  };
}

/**
 * The acquirer for a charge: test keys always use the sandbox; live keys use the account's API
 * Pix acquirer (`npm run admin -- set-provider`), or none (creation is 422) until one is set.
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
  return account.acquirer ? liveProvider(account.id, account.acquirer) : undefined;
}
