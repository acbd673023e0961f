/**
 * `npm start`: the whole service on this machine. `--in-memory` for a throwaway run: its files
 * (demo.json, metrics.jsonl, acquirer secrets, the PSP's certificates) go to a new temporary
 * folder, deleted on Ctrl-C, unless `DATA_DIR` names one.
 * `--with-psp` also starts the local PSP (API Pix, `PSP_PORT`) and makes it the demo account's
 * live acquirer, so live keys work end to end. Ctrl-C stops every server and child process.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalPsp } from '../infra/local/psp/server.ts';
import { startService } from '../infra/local/runtime.ts';
import { localSettings } from '../infra/local/settings.ts';

const startedAt = Date.now();
const inMemory = process.argv.includes('--in-memory');
// A throwaway run must not overwrite a saved run's demo.json (its password is printed only once)
// or add to its metrics: without an explicit DATA_DIR (the tests and the bench give one), its
// files go to a folder of its own, removed when it stops.
const scratchDir = inMemory && !process.env.DATA_DIR ? mkdtempSync(join(tmpdir(), 'pix-local-')) : undefined;
if (scratchDir) process.once('exit', () => rmSync(scratchDir, { recursive: true, force: true }));
const settings = { ...localSettings({ inMemory }), ...(scratchDir && { dataDir: scratchDir }) };
process.env.LOG_LEVEL ??= 'info';

const service = await startService(settings).catch((error: unknown) => {
  console.error(
    `Could not start the local service: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});

const { demo } = service;

/** The local PSP as the demo account's acquirer: what `npm run admin -- set-provider` does, in-process. */
async function startDemoAcquirer(): Promise<LocalPsp> {
  const { startLocalPsp } = await import('../infra/local/psp/server.ts');
  const { setProvider } = await import('../shared/services/set-provider.ts');
  const port = Number(process.env.PSP_PORT ?? 4700);
  const psp = await startLocalPsp({ port, dataDir: join(settings.dataDir, 'psp') }).catch(
    (error: unknown) => {
      if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
      throw new Error(
        `Port ${port} (local PSP) is already in use: stop the other process or set PSP_PORT to another port.`,
      );
    },
  );
  await setProvider({
    accountId: demo.account_id,
    baseUrl: psp.baseUrl,
    tokenUrl: psp.tokenUrl,
    clientId: psp.clientId,
    clientSecret: psp.clientSecret,
    pixKey: psp.pixKey,
    cert: psp.pki.client.cert,
    key: psp.pki.client.key,
    ca: psp.pki.ca.cert,
    apiBaseUrl: settings.baseUrl,
  });
  return psp;
}

const psp = process.argv.includes('--with-psp')
  ? await startDemoAcquirer().catch(async (error: unknown) => {
      console.error(
        `Could not start the local PSP: ${error instanceof Error ? error.message : String(error)}`,
      );
      await service.stop();
      process.exit(1);
    })
  : undefined;

const live = (p: LocalPsp) => {
  const tls = `--cacert ${p.files.ca} --cert ${p.files.clientCert} --key ${p.files.clientKey}`;
  return `
Live mode: the demo account's acquirer is the local PSP at ${p.baseUrl}
  (its callbacks come to ${settings.baseUrl}/v1/provider-callbacks/…; reconciliation runs on the scheduler)
  ID=$(curl -s ${settings.baseUrl}/v1/charges -H "apikey: ${demo.live_api_key}" -H 'Content-Type: application/json' \\
    -H "Idempotency-Key: live-$(date +%s)" -d '{"amount": 1050, "payment_method": "pix"}' | node -p 'JSON.parse(require("fs").readFileSync(0)).id')
  TXID=$(curl -s ${settings.baseUrl}/v1/payments/\${ID#ch_}/provider-status -H "apikey: ${demo.live_api_key}" | node -p 'JSON.parse(require("fs").readFileSync(0)).rawResponse.txid')
  curl -s ${tls} -X POST ${p.origin}/_control/cob/$TXID/pay -d '{}'   # the payer's bank pays it
  curl -s ${settings.baseUrl}/v1/charges/$ID -H "apikey: ${demo.live_api_key}"       # → "status": "paid"
`;
};

console.log(`
Pix service ready on ${settings.baseUrl} in ${Date.now() - startedAt} ms
  DynamoDB Local :${settings.dynamoDbPort}  SQS :${settings.sqsPort}  S3 :${settings.s3Port}  data: ${settings.inMemory ? `in memory (files in ${settings.dataDir}${scratchDir ? ', removed on exit' : ''})` : settings.dataDir}
  E-mails sent (SES emulator)  http://${settings.host}:${settings.sesPort}/

Demo account ${demo.account_id} (also in ${settings.dataDir}/demo.json)
  dashboard login  ${demo.email} / ${demo.password}
  test API key     ${demo.test_api_key}
  live API key     ${demo.live_api_key}

Try it:
  curl -s ${settings.baseUrl}/v1/wallets/balance -H "apikey: ${demo.test_api_key}"
${psp ? live(psp) : ''}`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await psp?.stop();
  await service.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
