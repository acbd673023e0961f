import type { RequestOptions } from '../http.ts';
import type {
  ApiKeyList,
  AuditLog,
  AuditLogParams,
  CreateApiKeyParams,
  IssuedApiKey,
  RevokedApiKey,
  RotateApiKeyParams,
} from '../types.ts';
import { followCursor } from './pagination.ts';
import { Resource } from './resource.ts';

/** `/v1/api-keys`: key management with a dashboard token (`token` client option). */
export class ApiKeys extends Resource {
  /** OWNER/ADMIN only; the cleartext `apiKey` is returned only here and on rotation. */
  create(params: CreateApiKeyParams = {}, options?: RequestOptions): Promise<IssuedApiKey> {
    return this.http.request({ method: 'POST', path: '/v1/api-keys', auth: 'token', body: params }, options);
  }

  /** Active keys, newest first, without cleartext. */
  list(options?: RequestOptions): Promise<ApiKeyList> {
    return this.http.request({ method: 'GET', path: '/v1/api-keys', auth: 'token' }, options);
  }

  /** Revokes the key and issues its replacement in one step (same mode; label kept unless given). */
  rotate(id: string, params: RotateApiKeyParams = {}, options?: RequestOptions): Promise<IssuedApiKey> {
    return this.http.request(
      { method: 'POST', path: `/v1/api-keys/${encodeURIComponent(id)}/rotate`, auth: 'token', body: params },
      options,
    );
  }

  /**
   * Permanent. A retry that finds the key already revoked after a lost answer resolves
   * `{ revoked: true }` (see README, Retries).
   */
  revoke(id: string, options?: RequestOptions): Promise<RevokedApiKey> {
    const revoked: RevokedApiKey = { revoked: true };
    return this.http.request(
      {
        method: 'DELETE',
        path: `/v1/api-keys/${encodeURIComponent(id)}`,
        auth: 'token',
        goneAnswer: revoked,
      },
      options,
    );
  }

  /** Issue, rotate and revoke events, newest first (OWNER/ADMIN). */
  auditLog(params: AuditLogParams = {}, options?: RequestOptions): Promise<AuditLog> {
    return this.http.request(
      { method: 'GET', path: '/v1/api-keys/audit-log', auth: 'token', query: { ...params } },
      options,
    );
  }

  /** Every audit event, newest first, fetching pages as the loop goes. */
  auditLogAll(
    params: Omit<AuditLogParams, 'starting_after'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<AuditLog['data'][number]> {
    return followCursor((starting_after) =>
      this.auditLog({ ...params, ...(starting_after && { starting_after }) }, options),
    );
  }
}
