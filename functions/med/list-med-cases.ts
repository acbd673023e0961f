import { parseMedListQuery } from '#shared/domain/med-cases.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listMedCases as list } from '#shared/services/list-med-cases.ts';

/**
 * GET /v1/med/cases (and /v1/infractions): newest first, cursor paging, every filter checked
 * (400 with `param` on an unknown value or a malformed date; never ignored).
 */
export const listMedCases: RouteHandler<KeyPrincipal> = async ({ principal, query }) => ({
  status: 200,
  body: await list(principal, parseMedListQuery(query)),
});
