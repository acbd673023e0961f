import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { storedFields } from '#shared/store/stored-body.ts';

/**
 * The stored body of an event item's stream image, to read its fields: Brotli-compressed Binary
 * (base64 in Lambda's JSON event, bytes from the local poller), or a string on items written
 * before bodies were compressed (stored-body.ts).
 */
export function eventBodyOf(image: Record<string, AttributeValue>): unknown {
  const binary = image.body?.B as Uint8Array | string | undefined;
  if (binary !== undefined)
    return storedFields(typeof binary === 'string' ? Buffer.from(binary, 'base64') : binary);
  return image.body?.S === undefined ? undefined : storedFields(image.body.S);
}
