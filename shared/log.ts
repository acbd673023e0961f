/**
 * Structured JSON logs, one object per line, through Powertools Logger (`level`, `message`,
 * `timestamp`, `service`, then the caller's fields at the top level). Callers pass only safe
 * fields: never headers, bodies, keys, tokens or passwords (API keys appear only as their
 * fingerprint). The level comes from `LOG_LEVEL` (config.ts): debug, info, warn, error, silent.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';
import { observability } from './resources.ts';

const logger = new Logger({
  serviceName: observability.serviceName,
  logLevel: config.logLevel.toUpperCase() as Uppercase<typeof config.logLevel>,
});

type Fields = Record<string, unknown>;

export const log = {
  debug: (message: string, fields: Fields = {}) => logger.debug(message, fields),
  info: (message: string, fields: Fields = {}) => logger.info(message, fields),
  warn: (message: string, fields: Fields = {}) => logger.warn(message, fields),
  error: (message: string, fields: Fields = {}) => logger.error(message, fields),
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
