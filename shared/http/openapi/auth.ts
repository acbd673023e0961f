/** `auth` group: dashboard login and logout. */

import * as v from 'valibot';
import { LoginBody, roles } from '../../domain/auth.ts';
import type { Operations } from './operation.ts';

export const LoginResponse = v.strictObject({
  token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.pipe(v.number(), v.integer()),
  account_id: v.string(),
  role: v.picklist(roles),
});

export const authOperations: Operations<'auth'> = {
  login: {
    summary: 'Log in to the dashboard',
    description:
      'E-mail and password → a dashboard token (HS256 JWT) for one account. `account_id` is required only for a user in several accounts. A wrong e-mail and a wrong password give the same 401. Failed logins are limited per e-mail address, known or not, counted from each client IP (an IPv6 client by its /64) and from all together: after 5 from one source within 15 minutes (from the first), every login for that address from that source, the right password included, is 429 `rate_limited` until the window is over (`Retry-After`: seconds left); after 50 from all sources, the same from every source the address has not logged in from in the last 30 days; and after 100 from one source to any addresses, every login from that source is 429 except to an address it logged in to in the last 30 days. A successful login spends no attempt.',
    body: LoginBody,
    responses: { 200: { description: 'The dashboard token.', schema: LoginResponse } },
    errors: { 401: ['unauthorized'], 429: ['rate_limited'] },
  },
  logout: {
    summary: 'Log out',
    description: 'The token is deny-listed until it expires.',
    responses: { 204: { description: 'Logged out.', empty: true } },
  },
};
