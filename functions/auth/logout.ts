import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { revokeSession } from '#shared/store/sessions.ts';

/** POST /v1/auth/logout: the token is denied until it would have expired anyway. */
export const logout: RouteHandler<UserPrincipal> = async ({ principal }) => {
  await revokeSession({
    userId: principal.userId,
    accountId: principal.accountId,
    jti: principal.jti,
    exp: principal.exp,
  });
  return { status: 204 };
};
