/**
 * Environment configuration, read once at cold start. A missing required variable throws
 * immediately rather than surfacing later as an empty string.
 */

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
}

function numberOr(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`Environment variable ${name} must be a number`);
  return value;
}

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  /** Deployed: the Secrets Manager ARN of the JWT signing secret. Locally: the secret itself. */
  get jwtSecretArn() {
    return process.env.JWT_SECRET_ARN;
  },
  get jwtSecret() {
    return process.env.JWT_SECRET;
  },
  get jwtTtlSeconds() {
    return numberOr('JWT_TTL_SECONDS', 3600);
  },
  /** Default per-key rate limit (requests per minute) when the account sets none. */
  get rateLimitPerMinute() {
    return numberOr('RATE_LIMIT_PER_MINUTE', 600);
  },
  get logLevel() {
    return process.env.LOG_LEVEL ?? 'info';
  },
};
