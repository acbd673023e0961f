/** The local PSP started in-process for the API Pix adapter tests, and the clients that talk to it. */

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type LocalPsp, type LocalPspOptions, startLocalPsp } from '../../infra/local/psp/server.ts';
import {
  type ApiPixConfig,
  type ApiPixProvider,
  apiPixProvider,
} from '../../shared/providers/api-pix/adapter.ts';

/** A txid as the service derives them: 32 alphanumerics. */
export const newTxid = (): string => `t${randomBytes(16).toString('hex').slice(0, 31)}`;

/**
 * Each PSP gets its own client id, so its adapters start with an empty token cache (the cache
 * is per credential set, across adapter instances).
 */
export const startPsp = (options: LocalPspOptions = {}): Promise<LocalPsp> =>
  startLocalPsp({
    clientId: `client-${randomBytes(4).toString('hex')}`,
    devolutionSettleMs: 200,
    ...options,
  });

/** The adapter a merchant configured with what this PSP issued; quick retries for tests. */
export const adapterFor = (psp: LocalPsp, overrides: Partial<ApiPixConfig> = {}): ApiPixProvider =>
  apiPixProvider({
    baseUrl: psp.baseUrl,
    tokenUrl: psp.tokenUrl,
    clientId: psp.clientId,
    clientSecret: psp.clientSecret,
    cert: psp.pki.client.cert,
    key: psp.pki.client.key,
    ca: psp.pki.ca.cert,
    pixKey: psp.pixKey,
    retries: 2,
    minRetryDelayMs: 10,
    timeoutMs: 3000,
    ...overrides,
  });

/** The header marking a request a test sent itself (`pspRequest`, `pspToken`), not the adapter. */
export const DIRECT = 'x-test-direct';

export interface HttpsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: () => any;
}

/** One HTTPS request to the PSP, with the merchant's client certificate unless `withoutClientCert`. */
export function pspRequest(
  psp: LocalPsp,
  options: { method: string; path: string; body?: unknown; token?: string; withoutClientCert?: boolean },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(options.path, psp.origin),
      {
        method: options.method,
        ca: psp.pki.ca.cert,
        ...(!options.withoutClientCert && { cert: psp.pki.client.cert, key: psp.pki.client.key }),
        headers: {
          'content-type': 'application/json',
          [DIRECT]: '1',
          ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/** A test control of the PSP (`/_control/…`), failing the test on anything but 2xx. */
export async function control(psp: LocalPsp, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await pspRequest(psp, { method, path: `/_control${path}`, body });
  if (answer.status >= 300)
    throw new Error(`PSP control ${method} ${path} answered ${answer.status}: ${answer.body}`);
  return answer.body === '' ? undefined : answer.json();
}

/** An access token from the PSP's token endpoint, as the adapter gets one (with `scope`, only those scopes). */
export async function pspToken(psp: LocalPsp, scope?: string): Promise<string> {
  const answer = await new Promise<string>((resolve, reject) => {
    const req = request(
      psp.tokenUrl,
      {
        method: 'POST',
        ca: psp.pki.ca.cert,
        cert: psp.pki.client.cert,
        key: psp.pki.client.key,
        auth: `${psp.clientId}:${psp.clientSecret}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', [DIRECT]: '1' },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      },
    );
    req.on('error', reject);
    req.end(new URLSearchParams({ grant_type: 'client_credentials', ...(scope && { scope }) }).toString());
  });
  return (JSON.parse(answer) as { access_token: string }).access_token;
}

export interface CallbackReceived {
  path: string;
  body: { pix: any[] };
}

/** Where the PSP posts its callbacks: a plain HTTP receiver on loopback that records path and body. */
export async function startCallbackReceiver(): Promise<{
  url: string;
  received: CallbackReceived[];
  stop: () => Promise<void>;
}> {
  const received: CallbackReceived[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/acct`,
    received,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface LiveMerchant {
  accountId: string;
  liveKey: string;
  /** What `set-provider` registered at the PSP: `<api>/v1/provider-callbacks/<token>`. */
  callbackUrl: string;
}

/** A new account whose acquirer is this PSP (`npm run admin -- set-provider`), and a live key. */
export async function liveMerchantAt(psp: LocalPsp, name: string): Promise<LiveMerchant> {
  const { admin } = await import('./admin.ts');
  const accountId = (await admin('create-account', '--name', name)).id as string;
  const set = await setProviderAt(psp, accountId);
  const liveKey = (await admin('issue-key', '--account', accountId, '--mode', 'live')).apiKey as string;
  return { accountId, liveKey, callbackUrl: set.callbackUrl };
}

/** `npm run admin -- set-provider` pointing the account at this PSP; its output. */
export async function setProviderAt(psp: LocalPsp, accountId: string): Promise<{ callbackUrl: string }> {
  const { admin } = await import('./admin.ts');
  const { testBaseUrl } = await import('./local-env.ts');
  return admin(
    'set-provider',
    ...['--account', accountId, '--base-url', psp.baseUrl, '--token-url', psp.tokenUrl],
    ...['--client-id', psp.clientId, `--client-secret=${psp.clientSecret}`, '--pix-key', psp.pixKey],
    ...['--cert', psp.files.clientCert, '--key', psp.files.clientKey, '--ca', psp.files.ca],
    ...['--api-url', testBaseUrl],
  );
}

/** A live charge of the merchant and the txid of its cob at the PSP. */
export async function liveChargeAt(
  psp: LocalPsp,
  liveKey: string,
  body: Record<string, unknown>,
): Promise<{ id: string; txid: string; body: any }> {
  const { api } = await import('./http.ts');
  const reply = await api('/v1/charges', {
    apikey: liveKey,
    headers: { 'Idempotency-Key': `live-${randomBytes(12).toString('hex')}` },
    body: { payment_method: 'pix', ...body },
  });
  if (reply.status !== 201) throw new Error(`live charge: ${reply.status} ${JSON.stringify(reply.body)}`);
  const cob = [...psp.bank.cobs.values()].find((c) => c.pixCopiaECola === reply.body.pix.br_code);
  if (!cob) throw new Error('no cob at the PSP for the charge');
  return { id: reply.body.id, txid: cob.txid, body: reply.body };
}
