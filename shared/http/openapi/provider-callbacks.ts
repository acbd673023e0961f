/** `provider-callbacks` group: the live acquirer's API Pix callback. */

import { providerCallbackSchema } from '../../domain/provider-callback.ts';
import type { Operations } from './operation.ts';

export const providerCallbackOperations: Operations<'provider-callbacks'> = {
  receiveProviderCallback: {
    summary: 'Receive a live acquirer’s Pix callback',
    description:
      'The URL `set-provider` registers at the PSP (`PUT /webhook/{chave}`): the standard’s `{"pix": [...]}` ' +
      '(`WebhookPixBody`, where `pix` is optional: a body without it, or with an empty list, queues nothing). ' +
      'Only each `endToEndId` is taken; every Pix is read back at the acquirer (`GET /pix/{e2eid}`) before ' +
      'anything changes, so a forged or replayed callback changes nothing. Answered at once; the work is queued. ' +
      'The unguessable token in the path is the credential: an unknown one is 404 (a body that is not a JSON object is 400 first).',
    body: providerCallbackSchema,
    responses: { 200: { description: 'Queued.', empty: true } },
  },
};
