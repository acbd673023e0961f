import { afterEach, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.ts';

afterEach(() => vi.unstubAllEnvs());

describe('config', () => {
  it('fails with the variable name when a number is malformed or a required value is missing', () => {
    vi.stubEnv('WEBHOOK_TIMEOUT_MS', '30s');
    expect(() => config.webhookTimeoutMs).toThrow(/WEBHOOK_TIMEOUT_MS must be a number/);
    vi.stubEnv('RATE_LIMIT_PER_MINUTE', '0');
    expect(() => config.rateLimitPerMinute).toThrow(/RATE_LIMIT_PER_MINUTE must be a number ≥ 1/);
    vi.stubEnv('LOGIN_FAILURE_LIMIT', '0');
    expect(() => config.loginFailureLimit).toThrow(/LOGIN_FAILURE_LIMIT must be a number ≥ 1/);
    vi.stubEnv('LOGIN_ADDRESS_FAILURE_LIMIT', 'many');
    expect(() => config.loginAddressFailureLimit).toThrow(/LOGIN_ADDRESS_FAILURE_LIMIT must be a number ≥ 1/);
    vi.stubEnv('WEBHOOK_QUEUE_URL', '');
    expect(() => config.webhookQueueUrl).toThrow('Missing required environment variable WEBHOOK_QUEUE_URL');
    vi.stubEnv('LOG_LEVEL', 'verbose');
    expect(() => config.logLevel).toThrow(
      /LOG_LEVEL must be one of debug, info, warn, error, silent, got "verbose"/,
    );
  });

  it('accepts only true or false for a flag, and applies defaults when unset', () => {
    vi.stubEnv('FAULT_INJECTION', 'yes');
    expect(() => config.faultInjection).toThrow(/FAULT_INJECTION must be "true" or "false"/);
    vi.stubEnv('FAULT_INJECTION', 'true');
    expect(config.faultInjection).toBe(true);
    vi.stubEnv('WEBHOOK_TIMEOUT_MS', '');
    vi.stubEnv('API_VERSION', '');
    expect([config.webhookTimeoutMs, config.apiVersion]).toEqual([30_000, '2026-11-01']);
    vi.stubEnv('LOGIN_FAILURE_LIMIT', '');
    vi.stubEnv('LOGIN_FAILURE_WINDOW_SECONDS', '');
    vi.stubEnv('LOGIN_ADDRESS_FAILURE_LIMIT', '');
    expect([
      config.loginFailureLimit,
      config.loginAddressFailureLimit,
      config.loginFailureWindowSeconds,
    ]).toEqual([5, 50, 900]);
  });
});
