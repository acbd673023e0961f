/**
 * The payer's side of a charge, over real HTTP against the local runtime: the BR Code (read by
 * an independent EMV parser), its QR images (decoded with jsqr), the signed Pix location (JWS
 * verified with the published JWKS), the hosted checkout page and its status document, and the
 * page itself in a headless phone browser turning paid or expired without a reload.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  CompactSign,
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
  errors,
  generateKeyPair,
  type JSONWebKeySet,
} from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import type { PublicCharge } from '../../shared/domain/charges.ts';
import { locationToken } from '../../shared/domain/pix-ids.ts';
import { SANDBOX_REFUSED_AMOUNT } from '../../shared/providers/sandbox.ts';
import { launchChromium, newPhoneContext } from '../helpers/browser.ts';
import { expire, newCharge, pay, payerLockedCharge } from '../helpers/charges.ts';
import { parseBrCode } from '../helpers/emv-parser.ts';
import { api, demo, expectError } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';
import { decodeQr } from '../helpers/qr.ts';

const AMOUNT = 1050;
const EXPIRES_IN = 900;
const SCREENSHOTS = fileURLToPath(new URL('../../.data/screenshots/', import.meta.url));

/** A valid CPF with random digits (each charge its own, clear of the per-customer velocity guard). */
function randomCpf(): string {
  const digits = Array.from(randomBytes(9), (byte) => byte % 10);
  if (digits.every((digit) => digit === digits[0])) digits[1] = ((digits[1] ?? 0) + 1) % 10; // 111.111.111-11 is invalid
  for (const length of [9, 10]) {
    const sum = digits.reduce((total, digit, index) => total + digit * (length + 1 - index), 0);
    digits.push(((sum * 10) % 11) % 10);
  }
  return digits.join('');
}

function newPayer() {
  const tag = randomUUID().slice(0, 8);
  return {
    name: `Joana Pagadora ${tag}`,
    document: randomCpf(),
    email: `joana.${tag}@example.com`,
    phone: `+55 11 9${tag.replace(/\D/g, '').padEnd(8, '7').slice(0, 8)}`,
  };
}

/** A pending R$ 10,50 test charge of the demo account, with every payer field filled in. */
const createCharge = (customer = newPayer()): Promise<PublicCharge> =>
  newCharge(demo().test_api_key, {
    amount: AMOUNT,
    expires_in: EXPIRES_IN,
    customer,
    description: 'Pedido 42',
  });

const rawId = (charge: PublicCharge) => charge.id.replace(/^ch_/, '');

/** Pays or expires the charge through the sandbox API (demo test key). */
async function settle(charge: PublicCharge, action: 'pay' | 'expire'): Promise<void> {
  const reply = await (action === 'pay' ? pay : expire)(demo().test_api_key, charge.id);
  if (reply.status !== 200)
    throw new Error(`sandbox ${action}: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** Intl writes "R$ 10,50" with a non-breaking space: compare with plain spaces. */
const normalizeSpaces = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

async function getJwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${testBaseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

async function fetchLocation(charge: PublicCharge): Promise<Response> {
  const location = parseBrCode(charge.pix.br_code ?? '').merchantAccount.get('25');
  return fetch(`http://${location}`);
}

async function verifiedPayload(charge: PublicCharge): Promise<Record<string, any>> {
  const jws = await (await fetchLocation(charge)).text();
  const { payload } = await compactVerify(jws, createLocalJWKSet(await getJwks()));
  return JSON.parse(new TextDecoder().decode(payload));
}

describe('the BR Code of a charge (pix.br_code)', () => {
  let charge: PublicCharge;
  beforeAll(async () => {
    charge = await createCharge();
  });

  it('parses with an independent EMV reader and carries a valid CRC', () => {
    const parsed = parseBrCode(charge.pix.br_code ?? '');

    expect(parsed.crcValid).toBe(true);
    expect(parsed.fields.get('63')).toBe(parsed.computedCrc);
  });

  it('is at most 512 characters long', () => {
    expect(charge.pix.br_code?.length).toBeLessThanOrEqual(512);
  });

  it('names the Pix GUI in merchant account 26.00', () => {
    expect(parseBrCode(charge.pix.br_code ?? '').merchantAccount.get('00')).toBe('br.gov.bcb.pix');
  });

  it('points 26.25 at the scheme-less /pix/<location token> location, at most 77 characters', () => {
    const location = parseBrCode(charge.pix.br_code ?? '').merchantAccount.get('25') ?? '';

    expect(location).toBe(`${new URL(testBaseUrl).host}/pix/${locationToken(rawId(charge))}`); // 127.0.0.1:3310/pix/…
    // A deployed API Gateway host (46 characters) still fits: the token is 22 characters, not the UUID's 36.
    expect(
      `${'x'.repeat(10)}.execute-api.sa-east-1.amazonaws.com/pix/${locationToken(rawId(charge))}`.length,
    ).toBeLessThanOrEqual(77);
    expect(location).not.toMatch(/^[a-z]+:\/\//i);
    expect(location.length).toBeLessThanOrEqual(77);
  });

  it('carries the amount with two decimals in field 54', () => {
    expect(parseBrCode(charge.pix.br_code ?? '').fields.get('54')).toBe('10.50');
  });

  it('names the merchant in at most 25 characters and the city in at most 15', () => {
    const { fields } = parseBrCode(charge.pix.br_code ?? '');

    expect(fields.get('59')?.length).toBeGreaterThan(0);
    expect(fields.get('59')?.length).toBeLessThanOrEqual(25);
    expect(fields.get('60')?.length).toBeGreaterThan(0);
    expect(fields.get('60')?.length).toBeLessThanOrEqual(15);
  });

  it('leaves the reference label 62.05 as *** (the txid travels in the location)', () => {
    expect(parseBrCode(charge.pix.br_code ?? '').additionalData.get('05')).toBe('***');
  });
});

describe('the QR code of a charge', () => {
  let charge: PublicCharge;
  beforeAll(async () => {
    charge = await createCharge();
  });

  it('pix.qr_code_base64 is a PNG that decodes to exactly the BR Code', () => {
    const png = Buffer.from(charge.pix.qr_code_base64 ?? '', 'base64');

    expect(decodeQr(png)).toBe(charge.pix.br_code);
  });

  it('GET pix.qr_code_url serves an image/png that decodes to exactly the BR Code', async () => {
    const response = await fetch(charge.pix.qr_code_url ?? '');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(decodeQr(Buffer.from(await response.arrayBuffer()))).toBe(charge.pix.br_code);
  });

  it('ignores a body sent with a GET of a public page, whatever it is (not an undeclared 400)', async () => {
    for (const [body, contentType] of [
      ['hello', 'text/plain'],
      ['{bad', 'application/json'],
    ] as const) {
      const answer = await getWithBody(`/checkout/${rawId(charge)}/status`, body, contentType);
      expect(answer.status, `${contentType} ${body}: ${answer.text}`).toBe(200);
      expect(JSON.parse(answer.text).status).toBe('pending');
    }
  });
});

/** A GET with a body, which fetch refuses to send but HTTP allows. */
function getWithBody(
  path: string,
  body: string,
  contentType: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${testBaseUrl}${path}`,
      { method: 'GET', headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Pix location of a charge (GET http://<26.25>)', () => {
  let charge: PublicCharge;
  beforeAll(async () => {
    charge = await createCharge();
  });

  it('serves application/jose whose header points at the JWKS and names one of its keys', async () => {
    const response = await fetchLocation(charge);
    const header = decodeProtectedHeader(await response.text());
    const jwks = await getJwks();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jose');
    expect(header.alg).toBe('ES256');
    expect(header.jku).toBe(`${testBaseUrl}/.well-known/jwks.json`);
    expect(jwks.keys.map((key) => key.kid)).toContain(header.kid);
  });

  it('verifies with the JWKS and describes the pending charge as ATIVA', async () => {
    const payload = await verifiedPayload(charge);

    expect(payload).toMatchObject({
      txid: charge.pix.txid,
      status: 'ATIVA',
      valor: { original: '10.50' },
      calendario: { expiracao: EXPIRES_IN },
    });
    expect(payload.txid).toEqual(expect.any(String));
  });

  it('says CONCLUIDA once the charge is paid', async () => {
    const paid = await createCharge();
    await settle(paid, 'pay');

    const payload = await verifiedPayload(paid);

    expect(payload.status).toBe('CONCLUIDA');
    expect(payload.txid).toBe(paid.pix.txid);
  });

  it('does not exist for a charge the acquirer refused (no BR Code, no txid)', async () => {
    const refused = await newCharge(demo().test_api_key, { amount: SANDBOX_REFUSED_AMOUNT });

    const reply = await api(`/pix/${locationToken(rawId(refused))}`);

    expect(refused.status).toBe('failed');
    expectError(reply, 404, 'not_found_error', 'not_found');
  });

  it('rejects a token signed by another key under the same kid (negative control)', async () => {
    const genuine = decodeProtectedHeader(await (await fetchLocation(charge)).text());
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new CompactSign(new TextEncoder().encode(JSON.stringify({ txid: charge.pix.txid })))
      .setProtectedHeader({ alg: 'ES256', typ: 'JWS', kid: genuine.kid ?? '', jku: genuine.jku ?? '' })
      .sign(privateKey);

    const verifying = compactVerify(forged, createLocalJWKSet(await getJwks()));

    await expect(verifying).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('rejects the genuine token with a tampered payload (negative control)', async () => {
    const [header, payload, signature] = (await (await fetchLocation(charge)).text()).split('.');
    const changed = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    changed.valor.original = '0.01';
    const tampered = [header, Buffer.from(JSON.stringify(changed)).toString('base64url'), signature].join(
      '.',
    );

    const verifying = compactVerify(tampered, createLocalJWKSet(await getJwks()));

    await expect(verifying).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });
});

describe('the hosted checkout page (GET checkout_url)', () => {
  let charge: PublicCharge;
  let payer: ReturnType<typeof newPayer>;
  let response: Response;
  let html: string;
  beforeAll(async () => {
    payer = newPayer();
    charge = await createCharge(payer);
    response = await fetch(charge.checkout_url);
    html = await response.text();
  });

  it('is text/html', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html\b/);
  });

  it('runs its inline style and script only under the nonce of its CSP header', () => {
    const csp = response.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];

    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain(`<style nonce="${nonce}">`);
  });

  it('shows the amount formatted in BRL', () => {
    expect(normalizeSpaces(html)).toContain('R$ 10,50');
  });

  it("contains none of the payer's name, document, e-mail or phone", () => {
    const formattedCpf = payer.document.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');

    for (const secret of [payer.name, payer.document, formattedCpf, payer.email, payer.phone]) {
      expect(html).not.toContain(secret);
    }
  });

  it('has one level-one heading (the amount) and announces status changes (role="status")', () => {
    expect(html.match(/<h1\b/g)).toHaveLength(1);
    expect(html).toMatch(/<h1 class="amount"[^>]*>R\$/);
    expect(html).toMatch(/<span [^>]*id="status" role="status"/);
  });

  it('tells a payer whose Pix was returned that it was returned, not that the charge cannot be paid', async () => {
    const apikey = demo().test_api_key;
    const locked = await payerLockedCharge(apikey);
    const paid = await pay(apikey, locked.id, { payer_document: randomCpf() }); // not the locked payer: returned
    expect(paid.body.charge.status).toBe('refunded');

    const page = await (await fetch(locked.checkout_url)).text();

    expect(page).toContain('>Devolvido</span>');
    expect(page).toMatch(/id="done"[^>]*>O valor pago foi devolvido\.<\/p>/);
  });
});

describe('the checkout status document (GET /checkout/{id}/status)', () => {
  it('returns status, amount, currency and expires_at only', async () => {
    const charge = await createCharge();

    const reply = await api(`/checkout/${rawId(charge)}/status`);

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      status: 'pending',
      amount: AMOUNT,
      currency: 'BRL',
      expires_at: charge.pix.expires_at,
    });
  });
});

describe('the charge-addressed public routes', () => {
  const routes = ['/checkout/{id}', '/checkout/{id}/status', '/checkout/{id}/qr.png', '/pix/{id}'];
  let charge: PublicCharge;
  beforeAll(async () => {
    charge = await createCharge();
  });

  it.each(routes)('%s answers 404 with the error envelope for an unknown or malformed id', async (route) => {
    const ids = [
      randomBytes(12).toString('hex'), // well-formed, unknown
      charge.id, // the public ch_ id: these routes take the raw id only
      `${rawId(charge)}0`, // one character too long
      'z'.repeat(36), // right length, not a UUID
      'not-a-charge',
    ];
    for (const id of ids) {
      const reply = await api(route.replace('{id}', encodeURIComponent(id)));
      expectError(reply, 404, 'not_found_error', 'not_found');
    }
  });

  it('answers a browser an unknown checkout link with a 404 page, under the same CSP', async () => {
    const reply = await fetch(`${testBaseUrl}/checkout/${randomBytes(12).toString('hex')}`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(reply.headers.get('content-security-policy')).toMatch(/^default-src 'none';/);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('vary')).toBe('Accept');
    const page = await reply.text();
    expect(page).toContain('<html lang="pt-BR">');
    expect(page).toContain('<h1 class="missing">Cobrança não encontrada</h1>');
    // A client that ranks JSON first (or names no type) gets the envelope, also marked as varying.
    for (const accept of ['application/json;q=1, text/html;q=0', 'application/json, text/html', '*/*']) {
      const json = await api(`/checkout/${randomBytes(12).toString('hex')}`, { headers: { accept } });
      expectError(json, 404, 'not_found_error', 'not_found');
      expect(json.headers.get('vary')).toBe('Accept');
    }
    // The other public routes stay JSON for a browser too: a client reads them, not a person.
    const status = await api(`/checkout/${randomBytes(12).toString('hex')}/status`, {
      headers: { accept: 'text/html' },
    });
    expectError(status, 404, 'not_found_error', 'not_found');
  });
});

// Concurrent: most of each test is waiting on the page's 1 s countdown and 2 s status poll.
describe.concurrent('the checkout page in a phone browser', () => {
  /** Launched by the first test that needs it, so a missing Chromium fails every test (never skips them). */
  let launching: Promise<Browser> | undefined;
  const browser = () => {
    launching ??= launchChromium();
    return launching;
  };
  beforeAll(() => {
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await (await launching?.catch(() => undefined))?.close();
  });

  /**
   * Opens the charge's checkout page in a fresh phone context, closed when the test ends; the
   * test fails if the page logs a script error, a CSP violation or a failed request.
   */
  async function open(charge: PublicCharge, { expect, onTestFinished }: TestContext): Promise<Page> {
    const context = await newPhoneContext(await browser(), testBaseUrl);
    const problems: string[] = [];
    onTestFinished(async () => {
      await context.close();
      expect(problems, 'page errors').toEqual([]);
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} ${message.location().url}`);
    });
    await page.goto(charge.checkout_url, { waitUntil: 'load' });
    return page;
  }

  /** Marks the document, so a reload (a new document) is detectable. */
  const markDocument = (page: Page) => page.evaluate('globalThis.__sameDocument = true');
  const sameDocument = (page: Page) => page.evaluate('globalThis.__sameDocument === true');

  it('shows the amount, "Aguardando pagamento", a ticking countdown, its end in Brasília time and a loaded QR code', async (t) => {
    const charge = await createCharge();
    const page = await open(charge, t);
    const countdown = page.getByTestId('countdown');

    const first = await countdown.textContent();

    const { expect } = t;
    expect(normalizeSpaces((await page.getByTestId('amount').textContent()) ?? '')).toBe('R$ 10,50');
    expect(await page.getByTestId('amount').isVisible()).toBe(true);
    expect(await page.getByTestId('status').textContent()).toBe('Aguardando pagamento');
    expect(first).toMatch(/^Expira em \d+:\d{2}$/);
    await expect.poll(() => countdown.textContent(), { timeout: 3_000, interval: 200 }).not.toBe(first);
    // Brasília is UTC−3 all year (no daylight saving time since 2019).
    const [date, time] = new Date(Date.parse(charge.pix.expires_at) - 3 * 3_600_000).toISOString().split('T');
    const [year, month, day] = (date ?? '').split('-');
    expect(await page.getByTestId('valid-until').textContent()).toBe(
      `Válido até ${day}/${month}/${year} ${time?.slice(0, 5)} (horário de Brasília)`,
    );
    const qr = page.getByAltText('QR Code Pix');
    expect(await qr.isVisible()).toBe(true);
    expect(await qr.evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBeGreaterThan(0);
    await page.screenshot({ path: `${SCREENSHOTS}checkout-pending.png`, fullPage: true });
  });

  it('renders a QR code that reads back as exactly the BR Code', async (t) => {
    const charge = await createCharge();
    const page = await open(charge, t);

    const shot = await page.getByAltText('QR Code Pix').screenshot();

    t.expect(decodeQr(shot)).toBe(charge.pix.br_code);
  });

  it('fits the phone screen: no horizontal scrolling and a thumb-sized copy button', async (t) => {
    const page = await open(await createCharge(), t);

    const pageWidth = await page.evaluate('document.documentElement.scrollWidth');
    const button = await page.getByRole('button', { name: 'Copiar código Pix' }).boundingBox();

    t.expect(pageWidth).toBeLessThanOrEqual(390);
    t.expect(button?.height).toBeGreaterThanOrEqual(44);
    t.expect(button?.width).toBeGreaterThanOrEqual(280);
  });

  it('copies the Pix code to the clipboard with the copy button', async (t) => {
    const charge = await createCharge();
    const page = await open(charge, t);

    await page.getByRole('button', { name: 'Copiar código Pix' }).click();

    await t.expect
      .poll(() => page.locator('button#copy').textContent(), { timeout: 2_000 })
      .toBe('Código copiado!');
    t.expect(await page.evaluate('navigator.clipboard.readText()')).toBe(charge.pix.br_code);
  });

  it('turns to "Pago" without a reload once the charge is paid', async (t) => {
    const charge = await createCharge();
    const page = await open(charge, t);
    await markDocument(page);

    await settle(charge, 'pay');

    await page
      .getByTestId('status')
      .filter({ hasText: /^Pago$/ })
      .waitFor({ timeout: 10_000 });
    t.expect(await sameDocument(page)).toBe(true);
    t.expect(await page.getByTestId('done').textContent()).toBe('Pagamento confirmado. Obrigado!');
    t.expect(await page.getByAltText('QR Code Pix').isVisible()).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}checkout-paid.png`, fullPage: true });
  });

  it('turns to "Expirado" without a reload once the charge expires', async (t) => {
    const charge = await createCharge();
    const page = await open(charge, t);
    await markDocument(page);

    await settle(charge, 'expire');

    await page
      .getByTestId('status')
      .filter({ hasText: /^Expirado$/ })
      .waitFor({ timeout: 10_000 });
    t.expect(await sameDocument(page)).toBe(true);
    t.expect(await page.getByTestId('done').textContent()).toBe(
      'Este Pix expirou. Peça um novo código à loja.',
    );
    t.expect(await page.getByRole('button', { name: 'Copiar código Pix' }).isVisible()).toBe(false);
  });
});
