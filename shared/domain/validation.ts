/** valibot → the spec's 400 envelope: `param` names the first failing field, `details` lists all. */

import * as v from 'valibot';
import { type ErrorDetail, InvalidInput } from './errors.ts';

export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  where: 'body' | 'query',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const details: ErrorDetail[] = result.issues.map((issue) => ({
    param: v.getDotPath(issue) ?? where,
    // strictObject reports an unexpected key as "Expected never".
    message: issue.expected === 'never' ? 'Unknown parameter' : issue.message,
  }));
  const first = details[0];
  throw new InvalidInput(first ? `Invalid ${first.param}: ${first.message}` : `Invalid ${where}`, {
    ...(first && { param: first.param }),
    details,
  });
}

/** An optional query-string integer within bounds (`limit=abc` → 400, never ignored). */
export const queryInteger = (min: number, max: number, fallback: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'Expected an integer'),
      v.transform(Number),
      v.minValue(min, `Expected at least ${min}`),
      v.maxValue(max, `Expected at most ${max}`),
    ),
    String(fallback),
  );
