import { AuditQuery, auditCursor, requireKeyManager, serializeAuditEvent } from '#shared/domain/api-keys.ts';
import { cursorList } from '#shared/domain/lists.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { listAuditEvents } from '#shared/store/api-keys.ts';

/** GET /v1/api-keys/audit-log: issue/rotate/revoke events, newest first, paged by cursor (OWNER/ADMIN). */
export const listApiKeyAudit: RouteHandler<UserPrincipal> = async ({ principal, query }) => {
  requireKeyManager(principal.role);
  const { limit, starting_after: after } = parseInput(AuditQuery, query, 'query');
  const { events, hasMore } = await listAuditEvents(principal.accountId, Number(limit), after);
  return { status: 200, body: cursorList(events, hasMore, serializeAuditEvent, auditCursor) };
};
