/**
 * The test runtime's log file (stdout and stderr, see global-setup.ts). Lines reach it a moment
 * after the response: read it by waiting for the line you expect, never after a fixed pause.
 */

import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { eventually } from './eventually.ts';

/** Every line written so far (the last one may still be incomplete). */
export const runtimeLogLines = (): string[] => readFileSync(inject('runtimeLog'), 'utf8').split('\n');

/** The JSON log records written so far (banner lines and an incomplete last line skipped). */
export function runtimeLogRecords(): Record<string, any>[] {
  return runtimeLogLines().flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, any>];
    } catch {
      return [];
    }
  });
}

/**
 * Waits for the `request` record of the API request with this id (written when the handler
 * finishes, after every line the request itself logged) and returns it.
 */
export function requestLogRecord(requestId: string): Promise<Record<string, any>> {
  return eventually(
    () => {
      const record = runtimeLogRecords().find((r) => r.message === 'request' && r.requestId === requestId);
      if (!record) throw new Error(`no request record for ${requestId} in the runtime log yet`);
      return record;
    },
    { timeoutMs: 5_000, intervalMs: 50, message: `the log record of request ${requestId}` },
  );
}
