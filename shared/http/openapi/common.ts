/** Small schemas every group's responses use. */

import * as v from 'valibot';

/** An instant the service wrote (`toISOString()`: UTC, milliseconds, `Z`). */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());
export const NullableTimestamp = v.nullable(Timestamp);
/** An amount in the smallest currency unit (centavos for BRL). */
export const Amount = v.pipe(v.number(), v.integer());
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/));
/** Free-form key/value pairs the merchant sent (and, on payments, `failure` and `med`). */
export const Metadata = v.record(v.string(), v.unknown());
