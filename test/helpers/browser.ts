/**
 * Headless Chromium for the checkout page tests (playwright-core drives the system browser; no
 * browser download). A missing browser is a failure, never a skip: CI installs it (`.ci/run`).
 */

import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: the checkout browser tests need it ` +
        '(apt-get install chromium; .ci/run installs it in CI).',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A phone (iPhone 12–15 class viewport) with the clipboard granted for `origin`. */
export async function newPhoneContext(browser: Browser, origin: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'pt-BR',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  return context;
}
