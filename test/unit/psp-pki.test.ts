/**
 * The local PSP's test certificates (infra/local/psp/pki.ts) parse and chain for OpenSSL every
 * time: a serial that DER-encodes with a leading zero byte is "illegal padding" to OpenSSL, and
 * one set in a few had one before (a whole adapter test file then failed its TLS handshakes).
 */

import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeTestPki } from '../../infra/local/psp/pki.ts';

describe('local PSP certificates', () => {
  it('every set parses, and the server and client certificates are issued by its CA', () => {
    for (let n = 0; n < 8; n++) {
      const pki = makeTestPki(`client-${n}`);
      const ca = new X509Certificate(pki.ca.cert);
      for (const pem of [pki.server.cert, pki.client.cert]) {
        const cert = new X509Certificate(pem);
        expect(cert.checkIssued(ca)).toBe(true);
        expect(cert.verify(ca.publicKey)).toBe(true);
        // Minimal DER: a positive serial whose first byte is not a padding zero.
        expect(cert.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
      }
    }
  }, 60_000);
});
