import { config } from '#shared/config.ts';
import { LoginBody } from '#shared/domain/auth.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler } from '#shared/http/types.ts';
import { logIn } from '#shared/services/log-in.ts';

/** POST /v1/auth/login: e-mail + password → dashboard JWT for one account (shared/services/log-in.ts). */
export const login: RouteHandler<undefined> = async ({ body, sourceIp }) => {
  const session = await logIn(parseInput(LoginBody, body, 'body'), sourceIp);
  return {
    status: 200,
    body: {
      token: session.token,
      token_type: 'Bearer',
      expires_in: config.jwtTtlSeconds,
      account_id: session.accountId,
      role: session.role,
    },
  };
};
