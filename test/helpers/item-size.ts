/**
 * An item's stored size as DynamoDB bills it (approximately): attribute names and values in
 * UTF-8, numbers about one byte per two digits, a few bytes per map or list. Write units are
 * per started KB of it.
 */
export function itemSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + itemSize(v), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (sum, [k, v]) => sum + Buffer.byteLength(k) + 1 + itemSize(v),
      0,
    )
  );
}
