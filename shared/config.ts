/**
 * Every environment variable the service reads, and the only place that reads them (a Biome
 * rule forbids `process.env` elsewhere in shared/ and functions/). Each value is checked when
 * read: a missing required variable or a malformed number throws with the variable's name.
 * Modules that need a value read it at module scope, so a bad one fails the Lambda's cold start
 * rather than a request. Getters rather than constants, because the local runtime fills
 * `process.env` after some modules are loaded.
 */

const env = process.env;

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
}

function optional(name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function numberOr(name: string, fallback: number, { min = 0 }: { min?: number } = {}): number {
  const raw = optional(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`Environment variable ${name} must be a number ≥ ${min}, got ${JSON.stringify(raw)}`);
  return value;
}

function oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
  const raw = optional(name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw))
    throw new Error(
      `Environment variable ${name} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  return raw as T;
}

function flag(name: string): boolean {
  const raw = optional(name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`Environment variable ${name} must be "true" or "false", got ${JSON.stringify(raw)}`);
}

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  /** Deployed: the Secrets Manager ARN of the JWT signing secret. Locally: the secret itself. */
  get jwtSecretArn() {
    return optional('JWT_SECRET_ARN');
  },
  get jwtSecret() {
    return optional('JWT_SECRET');
  },
  get jwtTtlSeconds() {
    return numberOr('JWT_TTL_SECONDS', 3600, { min: 60 });
  },
  /** Deployed: the ARN of the secret the Pix location JWS key derives from. Locally: the secret. */
  get pixSigningSecretArn() {
    return optional('PIX_SIGNING_SECRET_ARN');
  },
  get pixSigningSecret() {
    return optional('PIX_SIGNING_SECRET');
  },
  /** Default per-key rate limit (requests per minute) when the account sets none. */
  get rateLimitPerMinute() {
    return numberOr('RATE_LIMIT_PER_MINUTE', 600, { min: 1 });
  },
  /**
   * Failed dashboard logins allowed per e-mail address from one source (an IPv4 address or an
   * IPv6 /64) within `loginFailureWindowSeconds`; beyond them every login for that address from
   * that source, right password included, is 429 until the window passes
   * (shared/services/login-limit.ts).
   */
  get loginFailureLimit() {
    return numberOr('LOGIN_FAILURE_LIMIT', 5, { min: 1 });
  },
  /**
   * Failed dashboard logins allowed per e-mail address from all sources together within the
   * window, beyond which the address's logins are 429 from everywhere: it bounds guessing from
   * many sources, and locking an address out takes this many failures from
   * `loginAddressFailureLimit / loginFailureLimit` sources, not five from one.
   */
  get loginAddressFailureLimit() {
    return numberOr('LOGIN_ADDRESS_FAILURE_LIMIT', 50, { min: 1 });
  },
  /**
   * Failed dashboard logins allowed from one source to all addresses together within the window,
   * beyond which that source's logins are 429 for every address it has not logged in to from
   * there in the last 30 days: each failure of an unknown address still costs a password hash
   * (so timing reveals no account), and a source trying a new address each time is bounded
   * by nothing else.
   */
  get loginSourceFailureLimit() {
    return numberOr('LOGIN_SOURCE_FAILURE_LIMIT', 100, { min: 1 });
  },
  /** The failed-login window: it starts at an address's first counted attempt; the tests shorten it. */
  get loginFailureWindowSeconds() {
    return numberOr('LOGIN_FAILURE_WINDOW_SECONDS', 900, { min: 1 });
  },
  get logLevel() {
    return oneOf('LOG_LEVEL', LOG_LEVELS, 'info');
  },
  /**
   * The local runtime: EMF metric documents are appended to this file instead of stdout, so
   * they stay out of the request log. Never deployed (there CloudWatch reads them from stdout).
   */
  get metricsFile() {
    return optional('METRICS_FILE');
  },
  /** The `api_version` of canonical events (README, "API decisions", Events). */
  get apiVersion() {
    return optional('API_VERSION') ?? '2026-11-01';
  },
  /** A custom domain in front of the API; otherwise URLs use the request's own domain. */
  get publicBaseUrl() {
    return optional('PUBLIC_BASE_URL');
  },
  /** The MED evidence bucket (presigned uploads and downloads). */
  get evidenceBucket() {
    return required('EVIDENCE_BUCKET');
  },
  /**
   * Where each account's acquirer secret lives. Deployed: Secrets Manager, the secret named
   * `<prefix><accountId>`. Locally: `<dir>/<accountId>.json`, readable only by its owner.
   */
  get acquirerSecretPrefix() {
    return optional('ACQUIRER_SECRET_PREFIX');
  },
  get acquirerSecretsDir() {
    return optional('ACQUIRER_SECRETS_DIR');
  },
  /** The sender of MED notices: an address of the SES identity the stack grants `ses:SendEmail` on. */
  get emailFrom() {
    return required('EMAIL_FROM');
  },
  /** Where replies to MED notices go (the sender is usually a no-reply address); none: to the sender. */
  get emailReplyTo() {
    return optional('EMAIL_REPLY_TO');
  },
  get webhookQueueUrl() {
    return required('WEBHOOK_QUEUE_URL');
  },
  /** The live acquirers' callbacks: end-to-end ids to read back and settle. */
  get providerCallbackQueueUrl() {
    return required('PROVIDER_CALLBACK_QUEUE_URL');
  },
  /** A refund still unresolved this long after it was made is overdue (logged and counted); the local tests shorten it. */
  get refundOverdueSeconds() {
    return numberOr('REFUND_OVERDUE_SECONDS', 3600, { min: 1 });
  },
  /** How often each live acquirer is reconciled (`GET /pix`); the local tests shorten it. */
  get reconciliationPeriodSeconds() {
    return numberOr('RECONCILIATION_PERIOD_SECONDS', 300, { min: 1 });
  },
  /**
   * Each reconciliation run starts this far before the last one's end, so a Pix the PSP lists
   * late is still caught; the tests shorten it (a report they need gone from the listing).
   */
  get reconciliationOverlapSeconds() {
    return numberOr('RECONCILIATION_OVERLAP_SECONDS', 600, { min: 1 });
  },
  /** Receivers must answer within 30 s (Part 2); the tests shorten it. */
  get webhookTimeoutMs() {
    return numberOr('WEBHOOK_TIMEOUT_MS', 30_000, { min: 1 });
  },
  /** Compresses the retry schedule (tests only; never deployed). */
  get webhookRetryScale() {
    return numberOr('WEBHOOK_RETRY_SCALE', 1);
  },
  /** The local runtime: webhooks may go to http:// and loopback receivers. Never deployed. */
  get allowHttpWebhooks() {
    return flag('ALLOW_HTTP_WEBHOOKS');
  },
  /** The local test runtime: `x-fault-inject` headers fail requests at named points. Never deployed. */
  get faultInjection() {
    return flag('FAULT_INJECTION');
  },
};
