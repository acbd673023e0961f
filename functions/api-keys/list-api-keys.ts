import { canManageKeys, serializeKeyListItem } from '#shared/domain/api-keys.ts';
import type { RouteHandler, UserPrincipal } from '#shared/http/types.ts';
import { listApiKeys as listKeys } from '#shared/store/api-keys.ts';

/** GET /v1/api-keys: any member; never the cleartext. */
export const listApiKeys: RouteHandler<UserPrincipal> = async ({ principal }) => {
  const keys = await listKeys(principal.accountId);
  return {
    status: 200,
    body: { data: keys.map(serializeKeyListItem), access: { canManage: canManageKeys(principal.role) } },
  };
};
