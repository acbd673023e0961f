/**
 * Lambda event filtering as the stack declares it for the outbox's stream mapping (exact values
 * only): the local stream poller applies it to what it reads, and a replayed batch
 * (`functions/outbox/replay.ts`) to the records it reads back, so both hand the outbox what
 * Lambda would.
 */

/** A filter pattern: nested fields, lists of exact values. */
export interface FilterPattern {
  readonly [field: string]: FilterPattern | readonly (string | number)[];
}

function matchesFilter(value: unknown, pattern: FilterPattern): boolean {
  return Object.entries(pattern).every(([field, rule]) => {
    const actual = (value as Record<string, unknown> | null | undefined)?.[field];
    if (Array.isArray(rule)) return (rule as readonly unknown[]).includes(actual);
    return typeof actual === 'object' && actual !== null && matchesFilter(actual, rule as FilterPattern);
  });
}

/** Whether `value` matches any of a mapping's filters (Lambda ORs them); no filters: every record. */
export const matchesAnyFilter = (value: unknown, patterns: readonly FilterPattern[] | undefined): boolean =>
  patterns === undefined || patterns.some((pattern) => matchesFilter(value, pattern));
