import {
  AuditQuery,
  auditCursor,
  auditPage,
  requireKeyManager,
  serializeAuditEvent,
} from '#shared/domain/api-keys.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { listAuditEvents } from '#shared/store/api-keys.ts';

/** GET /v1/api-keys/audit-log: issue/rotate/revoke events, newest first, paged by cursor (OWNER/ADMIN). */
export const listApiKeyAudit: RouteHandler<UserPrincipal> = async ({ principal, query }) => {
  requireKeyManager(principal.role);
  const { limit, after } = auditPage(parseInput(AuditQuery, query, 'query'));
  // One more than the page tells whether another follows.
  const events = await listAuditEvents(principal.accountId, limit + 1, after);
  const page = events.slice(0, limit);
  const last = page.at(-1);
  const hasMore = events.length > limit && last !== undefined;
  return {
    status: 200,
    body: {
      object: 'list',
      data: page.map(serializeAuditEvent),
      has_more: hasMore,
      next_cursor: hasMore ? auditCursor(last) : null,
    },
  };
};
