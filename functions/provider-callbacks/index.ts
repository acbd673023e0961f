import { createApiHandler } from '#shared/http/api-handler.ts';
import { receiveProviderCallback } from './receive-provider-callback.ts';

export const handler = createApiHandler('provider-callbacks', { receiveProviderCallback });
