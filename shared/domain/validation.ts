/**
 * valibot → the spec's 400 envelope: `param` names the first failing field (none for a rule over
 * the whole object), `details` lists all.
 */

import * as v from 'valibot';
import { type ErrorDetail, InvalidInput } from './errors.ts';

export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  where: 'body' | 'query',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true, message: plainMessage });
  if (result.success) return result.output;
  const details: ErrorDetail[] = result.issues.flatMap((issue) =>
    isUnknownKey(issue)
      ? unknownKeys(schema, issue, where)
      : [{ param: v.getDotPath(issue) ?? where, message: issueMessage(issue) }],
  );
  const first = result.issues[0];
  const firstDetail = details[0];
  if (first === undefined || firstDetail === undefined) throw new InvalidInput(`Invalid ${where}`);
  // Not an object at all (the edge refuses that first for the routes that declare a body).
  if (where === 'body' && !isJsonObject(input)) throw new InvalidInput(NOT_A_JSON_OBJECT);
  // A rule over the whole object (say, "send at least one of …") has no path: no one field is at
  // fault, so the error names none (the spec's `param` is "when tied to one field"); its
  // `details` entry keeps the spec's {param, message} shape with `where` ("body", "query").
  if (v.getDotPath(first) === null) throw new InvalidInput(firstDetail.message, { details });
  const { param } = firstDetail;
  throw new InvalidInput(
    isMissing(first)
      ? `${firstDetail.message}${sentInstead(param, details)}`
      : `Invalid ${param}: ${firstDetail.message}`,
    { param, details },
  );
}

export const NOT_A_JSON_OBJECT = 'The request body must be a JSON object.';

/**
 * 400 for a range's bounds the wrong way round (`created_after` later than `created_before`):
 * either bound may be the wrong one, so the error names no `param`, as a rule over the whole
 * object does, and `details` names both.
 */
export function boundsReversed(start: string, end: string): InvalidInput {
  const message = `${start} must not be after ${end}.`;
  return new InvalidInput(message, { details: [start, end].map((param) => ({ param, message })) });
}

/** A JSON object: not an array, a string, a number or null. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A required field absent from its object (valibot: "Invalid key: Expected "x" but received undefined"). */
const isMissing = (issue: v.BaseIssue<unknown>): boolean =>
  issue.received === 'undefined' && (issue.path?.length ?? 0) > 0;

const UNKNOWN_PARAMETER = 'Unknown parameter';

/** A missing field's `details` message. */
export const requiredMessage = (param: string): string => `${param} is required.`;

/** Whether a `details` entry is an unknown key taken for `param` ("did you mean …?"). */
export const suggests = (detail: ErrorDetail, param: string): boolean =>
  detail.message === `${UNKNOWN_PARAMETER}: did you mean ${param}?`;

/** strictObject reports an unexpected key as "Expected never" (and only the first one of an object). */
const isUnknownKey = (issue: v.BaseIssue<unknown>): boolean => issue.expected === 'never';

/** What a `details` entry says: valibot's own message, except for a missing field. */
function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (isMissing(issue)) return requiredMessage(v.getDotPath(issue) ?? '');
  return issue.message;
}

/**
 * valibot's default wording for the checks that carry no message of their own ("Invalid type:
 * Expected string but received 1", "Invalid length: Expected >=1 but received 0") in the words of
 * the messages the schemas write ("Must be …").
 */
function plainMessage(issue: v.BaseIssue<unknown>): string {
  const { kind, type, requirement, input } = issue;
  const unit = typeof input === 'string' ? 'characters' : 'items';
  if (kind === 'schema') {
    if (type === 'string') return 'Must be a string';
    if (type === 'number') return 'Must be a number';
    if (type === 'boolean') return 'Must be true or false';
    if (type === 'array') return 'Must be an array';
    if (['object', 'strict_object', 'loose_object', 'record'].includes(type)) return 'Must be a JSON object';
  }
  if (kind === 'validation') {
    if (type === 'min_length' && requirement === 1) return 'Must not be empty';
    if (type === 'min_length') return `Must be at least ${String(requirement)} ${unit}`;
    if (type === 'max_length') return `Must be at most ${String(requirement)} ${unit}`;
    if (type === 'min_value') return `Must be at least ${String(requirement)}`;
    if (type === 'max_value') return `Must be at most ${String(requirement)}`;
    if (type === 'integer') return 'Must be an integer';
    if (type === 'email' || type === 'rfc_email') return 'Must be an e-mail address';
  }
  return issue.message;
}

/** A schema's shape as far as finding an object's fields needs (valibot's own properties). */
interface SchemaNode {
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  value?: SchemaNode;
}

/** The field names of the object schema at `keys` (through optional, array and record wrappers). */
function fieldsAt(schema: SchemaNode, keys: readonly unknown[]): string[] | undefined {
  const unwrap = (node: SchemaNode | undefined): SchemaNode | undefined => {
    let n = node;
    while (n?.wrapped) n = n.wrapped;
    return n;
  };
  let node = unwrap(schema);
  for (const key of keys) {
    if (node?.entries) node = unwrap(node.entries[String(key)]);
    else node = unwrap(node?.item ?? node?.value);
  }
  return node?.entries ? Object.keys(node.entries) : undefined;
}

/** Unknown keys listed one by one; a body of thousands gets the count of the rest (the answer stays small). */
const MAX_UNKNOWN_LISTED = 20;

/**
 * The unknown keys of the object where valibot met the first one (it stops there), each with the
 * field it was likely meant to be ("ammount" → amount, "expiresIn" → expires_in).
 */
function unknownKeys(schema: v.GenericSchema, issue: v.BaseIssue<unknown>, where: string): ErrorDetail[] {
  const path = issue.path ?? [];
  const parentKeys = path.slice(0, -1).map((item) => item.key);
  const object = path.at(-1)?.input;
  const fields = fieldsAt(schema as SchemaNode, parentKeys);
  const prefix = parentKeys.map(String).join('.');
  const dotted = (key: string) => (prefix === '' ? key : `${prefix}.${key}`);
  if (fields === undefined || !isJsonObject(object))
    return [{ param: v.getDotPath(issue) ?? where, message: UNKNOWN_PARAMETER }];
  const known = new Set(fields);
  const unknown = Object.keys(object).filter((key) => !known.has(key));
  const unsent = fields.filter((field) => !Object.hasOwn(object, field));
  const listed = unknown.slice(0, MAX_UNKNOWN_LISTED).map((key) => {
    const meant = closestField(key, unsent);
    return {
      param: dotted(key),
      message:
        meant === undefined ? UNKNOWN_PARAMETER : `${UNKNOWN_PARAMETER}: did you mean ${dotted(meant)}?`,
    };
  });
  const more = unknown.length - listed.length;
  return more > 0
    ? [...listed, { param: prefix === '' ? where : prefix, message: `${more} more unknown parameters` }]
    : listed;
}

/** A missing field another key was likely meant to be: " Received unknown parameter ammount: did you mean amount?" */
function sentInstead(param: string, details: ErrorDetail[]): string {
  const sent = details.find((d) => suggests(d, param));
  return sent === undefined ? '' : ` Received unknown parameter ${sent.param}: did you mean ${param}?`;
}

/** The field `key` was likely meant to be: the same but for case and separators, or a typo or two away. */
function closestField(key: string, fields: string[]): string | undefined {
  const loose = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
  const same = fields.find((field) => loose(field) === loose(key));
  if (same !== undefined) return same;
  const scored = fields
    .map((field) => ({ field, distance: editDistance(loose(key), loose(field)) }))
    .filter(({ field, distance }) => distance <= 2 && distance < loose(field).length / 3)
    .sort((a, b) => a.distance - b.distance);
  return scored[0]?.field;
}

/**
 * Edits from `a` to `b`, a swap of two neighbours counting one (optimal string alignment; the
 * usual Levenshtein packages count a swap as two, which misses `nmae` → name). Keys are short.
 */
function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      row[j] = Math.min(
        at(i - 1, j) + 1,
        at(i, j - 1) + 1,
        at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  return at(a.length, b.length);
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
export const queryInteger = (min: number, max: number, fallback: number) => {
  const range = `Must be an integer from ${min} to ${max}`;
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, range),
      v.transform(Number),
      v.minValue(min, range),
      v.maxValue(max, range),
    ),
    String(fallback),
  );
};
