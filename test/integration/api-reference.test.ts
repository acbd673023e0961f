import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { api } from '../helpers/http.ts';
import { testBaseUrl } from '../helpers/local-env.ts';

const SCREENSHOTS = fileURLToPath(new URL('../../.data/screenshots/', import.meta.url));
const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

describe('GET /v1/openapi.json', () => {
  it('serves the committed document, without credentials', async () => {
    const reply = await api('/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toEqual(committed);
  });
});

describe('the API reference page in a browser', () => {
  const launching = launchChromium();
  afterAll(async () => {
    await (await launching.catch(() => undefined))?.close();
  });

  it('renders every operation from this service alone, with no CDN and no page error', async () => {
    const browser = await launching;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(testBaseUrl) && !url.startsWith('data:') && !url.startsWith('blob:'))
        elsewhere.push(url);
    });

    const response = await page.goto(`${testBaseUrl}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    // Rendered from the document: its tags, then an operation with its request and responses.
    await page.getByText('Log in to the dashboard', { exact: true }).first().waitFor({ timeout: 20_000 });
    await page.getByText('charges', { exact: true }).first().click();
    await page.getByText('Create a Pix charge', { exact: true }).first().click();
    await page
      .getByRole('heading', { name: 'Create a Pix charge', exact: true })
      .waitFor({ timeout: 10_000 });
    await page.getByText('Idempotency-Key', { exact: true }).first().waitFor({ timeout: 10_000 });
    expect(await page.title()).toMatch(/Pix payment service/);

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOTS}api-reference.png` });
    expect(elsewhere, 'requests to other origins').toEqual([]);
    expect(problems, 'page errors').toEqual([]);
  }, 60_000);
});
