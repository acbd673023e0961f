/**
 * The body a live acquirer posts to `{webhookUrl}/pix` (API Pix callback: `{"pix": [...]}`).
 * Only each end-to-end id is taken from it: the Pix itself is read back at the acquirer.
 */

import * as v from 'valibot';

/** API Pix `endToEndId`: 32 characters; any 1–35 alphanumerics accepted, nothing else. */
const endToEndId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{1,35}$/, 'Expected an end-to-end id'));

/**
 * The standard's `WebhookPixBody`: `pix` is not required there, nor has it a minimum, so a body
 * without it or with an empty list (a PSP testing the URL) is answered and queues nothing. Each
 * Pix needs only its end-to-end id here (the rest is read back); anything else it carries
 * (`devolucoes`, fields the standard adds later) is let through unread.
 */
export const providerCallbackSchema = v.looseObject({
  pix: v.optional(v.pipe(v.array(v.looseObject({ endToEndId })), v.maxLength(1000))),
});

/** The distinct end-to-end ids of a callback already parsed. */
export const callbackEndToEndIds = (body: v.InferOutput<typeof providerCallbackSchema>): string[] => [
  ...new Set((body.pix ?? []).map((pix) => pix.endToEndId)),
];
