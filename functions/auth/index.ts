import { createApiHandler } from '#shared/http/api-handler.ts';
import { login } from './login.ts';
import { logout } from './logout.ts';

export const handler = createApiHandler('auth', { login, logout });
