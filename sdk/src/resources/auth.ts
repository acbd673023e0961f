import type { RequestOptions } from '../http.ts';
import type { LoginParams, LoginResult } from '../types.ts';
import { Resource } from './resource.ts';

/** Dashboard login: the token it returns is the `token` option of a client for `apiKeys`. */
export class Auth extends Resource {
  login(params: LoginParams, options?: RequestOptions): Promise<LoginResult> {
    return this.http.request({ method: 'POST', path: '/v1/auth/login', auth: 'none', body: params }, options);
  }

  /** Deny-lists the client's token until it expires. */
  async logout(options?: RequestOptions): Promise<void> {
    await this.http.request({ method: 'POST', path: '/v1/auth/logout', auth: 'token' }, options);
  }
}
