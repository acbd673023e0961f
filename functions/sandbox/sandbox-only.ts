import { NotFound } from '#shared/domain/errors.ts';
import type { KeyPrincipal } from '#shared/http/types.ts';

/** Sandbox routes exist only for test keys: a live key sees them as absent. */
export function requireTestMode(principal: KeyPrincipal): void {
  if (principal.mode !== 'test') throw new NotFound('Sandbox routes are available to ak_test_ keys only.');
}
