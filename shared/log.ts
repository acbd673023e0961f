/**
 * Structured JSON logs, one object per line, through Powertools Logger (`level`, `message`,
 * `timestamp`, `service`, then the caller's fields at the top level). Callers pass only safe
 * fields: never headers, bodies, keys, tokens or passwords (API keys appear only as their
 * fingerprint), and ids rather than personal data. Text from elsewhere (an upstream error's
 * message: SES names the addresses it refused, a PSP may quote the CPF it refused) can still
 * carry some, so every string logged has its tax ids and e-mail addresses masked
 * (`maskPersonalData`). The level comes from `LOG_LEVEL` (config.ts): debug, info, warn, error, silent.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';
import { maskPersonalData } from './domain/format.ts';
import { observability } from './resources.ts';

const logger = new Logger({
  serviceName: observability.serviceName,
  logLevel: config.logLevel.toUpperCase() as Uppercase<typeof config.logLevel>,
});

type Fields = Record<string, unknown>;

/** A field's value with every string in it masked (arrays and plain objects walked; anything else as it is). */
function masked(value: unknown): unknown {
  if (typeof value === 'string') return maskPersonalData(value);
  if (Array.isArray(value)) return value.map(masked);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, masked(item)]));
  return value;
}

const write =
  (level: 'debug' | 'info' | 'warn' | 'error') =>
  (message: string, fields: Fields = {}): void =>
    logger[level](maskPersonalData(message), masked(fields) as Fields);

export const log = {
  debug: write('debug'),
  info: write('info'),
  warn: write('warn'),
  error: write('error'),
};

/** Error fields safe to log: name, message, what caused it and stack; never the request that caused it. */
export const errorFields = (error: unknown): Record<string, unknown> =>
  error instanceof Error
    ? {
        errorName: error.name,
        errorMessage: error.message,
        // What it was met with underneath (an acquirer's 401 behind a 503, say).
        ...(error.cause instanceof Error && { errorCause: `${error.cause.name}: ${error.cause.message}` }),
        stack: error.stack,
      }
    : { error: String(error) };
