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
  // Not an object at all (the edge refuses that first for the routes that declare a body); a rule
  // over the whole object (say, "send at least one of …") also has no path, and keeps its message.
  if (where === 'body' && !isJsonObject(input)) throw new InvalidInput(NOT_A_JSON_OBJECT);
  throw new InvalidInput(
    isMissing(first) ? firstDetail.message : `Invalid ${firstDetail.param}: ${firstDetail.message}`,
    { param: firstDetail.param, details },
  );
}

export const NOT_A_JSON_OBJECT = 'The request body must be a JSON object.';

/** A JSON object: not an array, a string, a number or null. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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

/** The UTF-16 units a character may take at most here: an emoji sequence, not unbounded marks. */
const UNITS_PER_CHARACTER = 10;

/**
 * At most `max` characters as a reader counts them (grapheme clusters: an emoji or an accented
 * letter is one), not UTF-16 units, which would count an emoji as two; and at most
 * `max × UNITS_PER_CHARACTER` units, since one cluster can carry any number of combining marks
 * (stored size stays bounded). Spread into a string pipe; the OpenAPI document shows it as
 * `maxLength` (document.ts).
 */
export const maxChars = (max: number) =>
  [
    v.maxLength<string, number, string>(max * UNITS_PER_CHARACTER, `Must be at most ${max} characters`),
    v.maxGraphemes<string, number, string>(max, `Must be at most ${max} characters`),
  ] as const;

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
