/**
 * How long an Idempotency-Key answers with its first response (README, "Idempotency"). Reads
 * decide by the record's creation time, never by its presence: DynamoDB's TTL deletes expired
 * items late (up to days), so a record past its retention is treated as absent and may be
 * replaced by a new request with the same key.
 */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

const RETENTION_MS = IDEMPOTENCY_RETENTION_SECONDS * 1000;

/**
 * The retention period an instant falls in (`floor(now / retention)`). A key used again once its
 * record lapsed is at least one retention later, so always in a later period (`deriveTxid`).
 */
export const retentionPeriodOf = (nowMs: number): number => Math.floor(nowMs / RETENTION_MS);

/** Whether a record created at `createdAt` still answers for its key at `nowMs`. */
export const retained = (record: { createdAt: string }, nowMs: number): boolean =>
  nowMs < Date.parse(record.createdAt) + RETENTION_MS;

/**
 * Whether a refund's stored record answers this request: within its retention, any request with
 * its key (the same body replays, another is refused); after it, still the same request, for as
 * long as the record is kept, since a late retry must never refund twice; another body is new.
 */
export const answersRefund = (
  record: { createdAt: string; requestHash: string },
  requestHash: string,
  nowMs: number,
) => retained(record, nowMs) || record.requestHash === requestHash;

/** The creation time at or before which a record no longer answers for its key at `nowMs`. */
export const lapsedAtOrBefore = (nowMs: number): string => new Date(nowMs - RETENTION_MS).toISOString();

/**
 * What a record created at `createdAt` is stored with: when TTL may delete it (epoch seconds),
 * and the creation time up to which an older record of the same key may be replaced by it.
 */
export const idempotencyLifetime = (createdAt: string): { expiresAt: number; replacesUpTo: string } => {
  const createdMs = Date.parse(createdAt);
  return {
    expiresAt: Math.floor(createdMs / 1000) + IDEMPOTENCY_RETENTION_SECONDS,
    replacesUpTo: lapsedAtOrBefore(createdMs),
  };
};
