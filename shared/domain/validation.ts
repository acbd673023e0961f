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
    message: issueMessage(issue),
  }));
  const first = result.issues[0];
  const firstDetail = details[0];
  if (first === undefined || firstDetail === undefined) throw new InvalidInput(`Invalid ${where}`);
  // Not an object at all (a route that reads none may still pass one in); a rule over the whole
  // object (say, "send at least one of …") also has no path, and keeps its own message.
  const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
  if (where === 'body' && !isObject) throw new InvalidInput('The request body must be a JSON object.');
  throw new InvalidInput(
    isMissing(first) ? firstDetail.message : `Invalid ${firstDetail.param}: ${firstDetail.message}`,
    { param: firstDetail.param, details },
  );
}

/** A required field absent from its object (valibot: "Invalid key: Expected "x" but received undefined"). */
const isMissing = (issue: v.BaseIssue<unknown>): boolean =>
  issue.received === 'undefined' && (issue.path?.length ?? 0) > 0;

/** What a `details` entry says: valibot's own message, except for a missing or an unknown field. */
function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (isMissing(issue)) return `${v.getDotPath(issue)} is required.`;
  // strictObject reports an unexpected key as "Expected never".
  if (issue.expected === 'never') return 'Unknown parameter';
  return issue.message;
}

/** A value from a fixed list; the error names every allowed value. */
export const oneOf = <const T extends readonly string[]>(values: T) =>
  v.picklist(values, `Must be one of ${values.join(', ')}`);

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
