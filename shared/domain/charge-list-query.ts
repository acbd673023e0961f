/** `GET /v1/charges` query (Part 1's defined contract). */

import * as v from 'valibot';
import { parseChargeId } from './pix-ids.ts';
import { normalizeTaxId } from './tax-id.ts';
import { publicStatuses } from './transaction-status.ts';
import { oneOf, queryInteger } from './validation.ts';

const Timestamp = v.pipe(
  v.string(),
  v.check(
    (value) =>
      /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)),
    'Must be an ISO 8601 timestamp',
  ),
  v.transform(Date.parse),
);

/** `page` and `offset` are not in the schema: strict parsing rejects them (cursor pagination only). */
export const ListChargesQuery = v.strictObject({
  limit: queryInteger(1, 100, 25),
  starting_after: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (value) => value.startsWith('ch_') && parseChargeId(value) !== undefined,
        'Must be a charge id (ch_…)',
      ),
      v.transform((value) => parseChargeId(value) ?? ''),
    ),
  ),
  status: v.optional(oneOf(publicStatuses)),
  created_after: v.optional(Timestamp),
  created_before: v.optional(Timestamp),
  customer_id: v.optional(v.pipe(v.string(), v.minLength(1), v.transform(normalizeTaxId))),
});
