/** A use case's stored-or-fresh response as sent: a replay says so (`Idempotent-Replayed: true`). */

import type { ApiResponse } from './types.ts';

export const idempotentResponse = (result: {
  status: number;
  body: unknown;
  replayed: boolean;
}): ApiResponse => ({
  status: result.status,
  body: result.body,
  ...(result.replayed && { headers: { 'Idempotent-Replayed': 'true' } }),
});
