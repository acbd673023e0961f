import { createApiHandler } from '#shared/http/api-handler.ts';
import { login } from './login.ts';
import { logout } from './logout.ts';

/** Also serves API Gateway's `$default` route, answering unknown paths with the 404 envelope. */
export const handler = createApiHandler('auth', { login, logout });
