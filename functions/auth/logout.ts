import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { logOut } from '#shared/services/log-out.ts';

/** POST /v1/auth/logout (shared/services/log-out.ts). */
export const logout: RouteHandler<UserPrincipal> = async ({ principal }) => {
  await logOut({
    userId: principal.userId,
    accountId: principal.accountId,
    jti: principal.jti,
    exp: principal.exp,
  });
  return { status: 204 };
};
