/**
 * An operator sets a merchant's live acquirer (`npm run admin -- set-provider`, README "Going live"): the
 * PEM files are checked (a certificate, a key that matches it, the PSP's CA), the callback is
 * registered at the PSP with `PUT /webhook/{chave}` (so credentials the PSP refuses change
 * nothing here), then the secret is stored (Secrets Manager or an owner-only file) and the
 * account points at the acquirer and the new callback URL, whose token only the PSP is told.
 * Setting it again replaces all of it; the old callback URL stops working.
 */

import { createPrivateKey, X509Certificate } from 'node:crypto';
import {
  type AcquirerSecret,
  type AcquirerSettings,
  callbackTokenHash,
  callbackWebhookUrl,
  type SetProviderInput,
} from '../domain/acquirer.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { newCallbackToken } from '../ids.ts';
import { acquirerSecretStore, putAcquirerSecret } from '../providers/acquirer-secrets.ts';
import { apiPixProvider } from '../providers/api-pix/adapter.ts';
import { getAccount, setAcquirerItems } from '../store/accounts.ts';
import { transact } from '../store/client.ts';
import { readReconciliationCursor, reconciliationItem } from '../store/live-acquirer.ts';

interface SetProviderRequest extends SetProviderInput {
  accountId: string;
  /** PEM text of the merchant's client certificate and key, and the PSP's CA when private. */
  cert: string;
  key: string;
  ca?: string;
  /** The API's public base URL, where the PSP will post. */
  apiBaseUrl: string;
}

/** 400 naming the file at fault unless the PEMs parse and the key is the certificate's. */
function checkPems(request: SetProviderRequest): void {
  const parse = <T>(param: string, read: () => T): T => {
    try {
      return read();
    } catch {
      throw new InvalidInput(`--${param} is not a PEM ${param === 'key' ? 'private key' : 'certificate'}.`, {
        param,
      });
    }
  };
  const cert = parse('cert', () => new X509Certificate(request.cert));
  const key = parse('key', () => createPrivateKey(request.key));
  if (!cert.checkPrivateKey(key))
    throw new InvalidInput('--key is not the private key of --cert.', { param: 'key' });
  if (request.ca !== undefined) parse('ca', () => new X509Certificate(request.ca as string));
}

export async function setProvider(request: SetProviderRequest): Promise<{ callbackUrl: string }> {
  checkPems(request);
  // Deployed, the callback URL carries its token: never over plain HTTP.
  if (acquirerSecretStore() === 'aws' && !/^https:\/\//i.test(request.apiBaseUrl))
    throw new InvalidInput(
      '--api-url must be an https:// URL when deployed: the callback URL carries its token.',
      {
        param: 'api-url',
      },
    );
  const account = await getAccount(request.accountId);
  if (!account) throw new NotFound(`No account ${request.accountId}.`);
  const secret: AcquirerSecret = {
    clientId: request.clientId,
    clientSecret: request.clientSecret,
    cert: request.cert,
    key: request.key,
    ...(request.ca !== undefined && { ca: request.ca }),
  };
  const token = newCallbackToken();
  const callbackUrl = callbackWebhookUrl(request.apiBaseUrl, token);
  const provider = apiPixProvider({
    ...secret,
    baseUrl: request.baseUrl,
    tokenUrl: request.tokenUrl,
    pixKey: request.pixKey,
    ...(request.scopes !== undefined && { scopes: request.scopes }),
  });
  await provider.registerWebhook(callbackUrl);
  await putAcquirerSecret(request.accountId, secret);
  const acquirer: AcquirerSettings = {
    kind: 'api-pix',
    baseUrl: request.baseUrl,
    tokenUrl: request.tokenUrl,
    pixKey: request.pixKey,
    ...(request.scopes !== undefined && { scopes: request.scopes }),
    callbackTokenHash: callbackTokenHash(token),
    configuredAt: new Date().toISOString(),
  };
  // Reconciliation (`GET /pix`) of a new acquirer starts from now; the same acquirer set again
  // (new credentials, a renewed certificate) keeps its cursor, so Pix whose callbacks were lost
  // before (while its credentials had expired, say) are still read. Due at once either way.
  const earlier =
    account.acquirer?.baseUrl === request.baseUrl
      ? await readReconciliationCursor(request.accountId)
      : undefined;
  const reconciledTo =
    earlier && earlier.reconciledTo < acquirer.configuredAt ? earlier.reconciledTo : acquirer.configuredAt;
  const result = await transact({
    acquirer: setAcquirerItems(request.accountId, acquirer, account.acquirer?.callbackTokenHash),
    reconciliation: reconciliationItem({ accountId: request.accountId, reconciledTo }, acquirer.configuredAt),
  });
  if (!result.committed) throw new NotFound(`No account ${request.accountId}.`);
  return { callbackUrl };
}
