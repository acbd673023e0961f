/**
 * The local PSP's test PKI, made fresh at each start with node-forge: a CA, the PSP's server
 * certificate (for localhost and 127.0.0.1) and one client certificate per merchant, as a real
 * PSP issues them for API Pix mutual TLS. RSA keys come from node's own generator (forge uses it
 * when present), so a whole set takes well under a second.
 */

import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

const { pki } = forge;

interface CertificatePair {
  cert: string;
  key: string;
}

export interface TestPki {
  ca: CertificatePair;
  server: CertificatePair;
  client: CertificatePair;
}

const DAY_MS = 86_400_000;

function issue(options: {
  commonName: string;
  issuer?: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey };
  extensions: object[];
  days: number;
}): { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } {
  const keys = pki.rsa.generateKeyPair({ bits: 2048 });
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // A positive serial in minimal DER: the top bit clear (positive) and the next one set, so the
  // first byte is never 0x00 (an odd-length hex string became a leading zero byte before some
  // serials, which OpenSSL refuses as illegal padding: one certificate set in a few failed).
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + options.days * DAY_MS);
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'Local PSP (test only)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : subject);
  cert.setExtensions([...options.extensions, { name: 'subjectKeyIdentifier' }]);
  cert.sign(options.issuer?.key ?? keys.privateKey, forge.md.sha256.create());
  return { cert, key: keys.privateKey };
}

const pem = (issued: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey }): CertificatePair => ({
  cert: pki.certificateToPem(issued.cert),
  key: pki.privateKeyToPem(issued.key),
});

/** A CA and a client certificate for `clientId`; the server certificate names localhost and 127.0.0.1. */
export function makeTestPki(clientId: string): TestPki {
  const ca = issue({
    // Unique, so another set's CA is another issuer by name too, as two real CAs are.
    commonName: `Local PSP test CA ${randomBytes(4).toString('hex')}`,
    days: 30,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = issue({
    commonName: 'localhost',
    issuer: ca,
    days: 30,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const client = issue({
    commonName: clientId,
    issuer: ca,
    days: 30,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
    ],
  });
  return { ca: pem(ca), server: pem(server), client: pem(client) };
}

export interface PkiFiles {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Writes the PEM files into `dir` (keys readable by their owner only) and returns their paths. */
export function writePki(dir: string, set: TestPki): PkiFiles {
  mkdirSync(dir, { recursive: true });
  const files: PkiFiles = {
    ca: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server.pem'),
    serverKey: join(dir, 'server-key.pem'),
    clientCert: join(dir, 'client.pem'),
    clientKey: join(dir, 'client-key.pem'),
  };
  writeFileSync(files.ca, set.ca.cert);
  writeFileSync(files.serverCert, set.server.cert);
  writeFileSync(files.serverKey, set.server.key, { mode: 0o600 });
  writeFileSync(files.clientCert, set.client.cert);
  writeFileSync(files.clientKey, set.client.key, { mode: 0o600 });
  return files;
}
