import { NotFound } from '#shared/domain/errors.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';

/** Not built yet. */
export const cancelPayment: RouteHandler<KeyPrincipal> = async () => {
  throw new NotFound();
};
