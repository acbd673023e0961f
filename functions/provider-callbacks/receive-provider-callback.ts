import type { RouteHandler } from '#shared/http/types.ts';
import { acceptProviderCallback } from '#shared/services/accept-provider-callback.ts';

/** POST /v1/provider-callbacks/{token}/pix: queued, answered at once (the PSP retries anything else). */
export const receiveProviderCallback: RouteHandler<undefined> = async ({ pathParameters, body }) => {
  await acceptProviderCallback(pathParameters.token ?? '', body);
  return { status: 200 };
};
