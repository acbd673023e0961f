/**
 * `npm run psp`: the local PSP (API Pix over mutual TLS, infra/local/psp/) on this machine, with
 * a fresh test CA. Prints what a merchant gets from a real PSP: base URL, token URL, client
 * credentials, certificate files. Ctrl-C stops it.
 */

import { join, resolve } from 'node:path';
import { startLocalPsp } from '../infra/local/psp/server.ts';

const port = Number(process.env.PSP_PORT ?? 4700);
if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('PSP_PORT must be a TCP port');
const dataDir = join(resolve(process.env.DATA_DIR || '.data'), 'psp');

const psp = await startLocalPsp({
  port,
  dataDir,
  ...(process.env.PSP_CLIENT_ID && { clientId: process.env.PSP_CLIENT_ID }),
  ...(process.env.PSP_CLIENT_SECRET && { clientSecret: process.env.PSP_CLIENT_SECRET }),
  ...(process.env.PSP_PIX_KEY && { pixKey: process.env.PSP_PIX_KEY }),
  log: (line) => console.log(`${new Date().toISOString()} ${line}`),
});

const { files } = psp;
const tls = `--cacert ${files.ca} --cert ${files.clientCert} --key ${files.clientKey}`;
console.log(`
Local PSP (API Pix 2.9.0, mutual TLS) ready
  base URL       ${psp.baseUrl}
  token URL      ${psp.tokenUrl}
  client id      ${psp.clientId}
  client secret  ${psp.clientSecret}
  Pix key        ${psp.pixKey}
  CA             ${files.ca}
  client cert    ${files.clientCert}
  client key     ${files.clientKey}

Try it:
  TOKEN=$(curl -s ${tls} -u '${psp.clientId}:${psp.clientSecret}' -d grant_type=client_credentials ${psp.tokenUrl} | node -p 'JSON.parse(require("fs").readFileSync(0)).access_token')
  curl -s ${tls} -X PUT ${psp.baseUrl}/cob/localpsp0000000000000000000001 -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d '{"calendario":{"expiracao":3600},"valor":{"original":"10.50"},"chave":"${psp.pixKey}"}'
  curl -s ${tls} -X POST ${psp.origin}/_control/cob/localpsp0000000000000000000001/pay -d '{"payerDocument":"12345678909","payerName":"Fulano"}'
`);

const shutdown = async () => {
  await psp.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
