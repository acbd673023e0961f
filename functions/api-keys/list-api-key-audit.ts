import { AuditQuery, requireKeyManager, serializeAuditEvent } from '#shared/domain/api-keys.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { listAuditEvents } from '#shared/store/api-keys.ts';

/** GET /v1/api-keys/audit-log: issue/rotate/revoke events, newest first (OWNER/ADMIN). */
export const listApiKeyAudit: RouteHandler<UserPrincipal> = async ({ principal, query }) => {
  requireKeyManager(principal.role);
  const { limit } = parseInput(AuditQuery, query, 'query');
  const events = await listAuditEvents(principal.accountId, limit);
  return { status: 200, body: { object: 'list', data: events.map(serializeAuditEvent) } };
};
