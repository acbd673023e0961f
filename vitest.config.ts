import { defineConfig } from 'vitest/config';
import { testAwsEnv } from './test/helpers/local-env.ts';

export default defineConfig({
  test: {
    // The plain closing line is what CI's log reader counts (test/helpers/plain-summary-reporter.ts).
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Not UTC, so a rule that reads or writes local time fails here (Lambda runs in UTC).
          env: { LOG_LEVEL: 'silent', TZ: 'America/Sao_Paulo' },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/helpers/ledger-invariant.ts', 'test/helpers/contract-fetch.ts'],
          env: testAwsEnv,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
