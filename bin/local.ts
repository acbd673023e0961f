/**
 * `npm start`: the whole service on this machine. `--in-memory` for a throwaway run.
 * Ctrl-C stops every server and child process.
 */

import { startService } from '../infra/local/runtime.ts';
import { localSettings } from '../infra/local/settings.ts';

const startedAt = Date.now();
const settings = localSettings({ inMemory: process.argv.includes('--in-memory') });
process.env.LOG_LEVEL ??= 'info';

const service = await startService(settings).catch((error: unknown) => {
  console.error(
    `Could not start the local service: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});

const { demo } = service;
console.log(`
Pix service ready on ${settings.baseUrl} in ${Date.now() - startedAt} ms
  DynamoDB Local :${settings.dynamoDbPort}  SQS :${settings.sqsPort}  S3 :${settings.s3Port}  data: ${settings.inMemory ? 'in memory' : settings.dataDir}
  E-mails sent (SES emulator)  http://${settings.host}:${settings.sesPort}/

Demo account ${demo.account_id} (also in ${settings.dataDir}/demo.json)
  dashboard login  ${demo.email} / ${demo.password}
  test API key     ${demo.test_api_key}
  live API key     ${demo.live_api_key}

Try it:
  curl -s ${settings.baseUrl}/v1/wallets/balance -H "apikey: ${demo.test_api_key}"
`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  await service.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
