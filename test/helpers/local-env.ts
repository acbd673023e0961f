/**
 * The integration suite's own runtime: fixed loopback ports beside a developer's `npm start`,
 * and the environment that lets tests read stored state with the project's store modules.
 */

/** `TEST_PORT_OFFSET` lets two suites run side by side on one machine. */
const offset = Number(process.env.TEST_PORT_OFFSET ?? 0);
const port = (base: number) => String(base + offset);

export const testPorts = {
  PORT: port(3310),
  DYNAMODB_PORT: port(8310),
  SQS_PORT: port(9330),
  S3_PORT: port(4590),
  SES_PORT: port(7310),
} as const;

/** The SES emulator's HTTP side (`GET /store`: every e-mail sent). */
export const testSesUrl = `http://127.0.0.1:${testPorts.SES_PORT}`;

export const testBaseUrl = `http://127.0.0.1:${testPorts.PORT}`;

/** Exactly what the runtime gives its handlers (see infra/local/settings.ts). */
export const testAwsEnv = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${testPorts.DYNAMODB_PORT}`,
  AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${testPorts.SQS_PORT}`,
  AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${testPorts.S3_PORT}`,
  AWS_ENDPOINT_URL_SESV2: testSesUrl,
  EMAIL_FROM: 'Pix <no-reply@pix.localhost>',
  TABLE_NAME: 'pix-service',
  /** Shared with the runtime so tests can sign expired or foreign tokens. */
  JWT_SECRET: 'integration-test-secret-not-used-anywhere-else',
  LOG_LEVEL: 'silent',
  /** Use cases a test calls in its own process keep their metrics out of the test log (the runtime's go to its data folder). */
  METRICS_FILE: '/dev/null',
} as const;

/**
 * The runtime's failed-login window (shared/config.ts): 20 s instead of 15 minutes, so a test
 * sees it pass, yet long enough for a dozen logins one after another on a busy machine. The
 * limit itself is the default (`config.loginFailureLimit`).
 */
export const testLoginWindow = { LOGIN_FAILURE_WINDOW_SECONDS: '20' } as const;

/**
 * The test runtime's short timings that tests compute with: the dispatcher's POST timeout (its
 * delivery lease follows from it) and when an unresolved refund is overdue (not an hour).
 */
/** Where replies to MED notices go, in the suite's runtime (`EMAIL_REPLY_TO`). */
export const testEmailReplyTo = 'Suporte Pix <suporte@pix.localhost>';

export const testTimings = { WEBHOOK_TIMEOUT_MS: '1500', REFUND_OVERDUE_SECONDS: '8' } as const;

/** Refuse to run against anything but this machine. */
export function assertLocalEndpoints(env: Record<string, string | undefined> = process.env): void {
  for (const name of [
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_SQS',
    'AWS_ENDPOINT_URL_S3',
    'AWS_ENDPOINT_URL_SESV2',
  ] as const) {
    const value = env[name];
    if (!value || !/^http:\/\/(127\.0\.0\.1|localhost):\d+$/.test(value)) {
      throw new Error(`Integration tests run only against the local runtime: ${name} is ${value ?? 'unset'}`);
    }
  }
}
