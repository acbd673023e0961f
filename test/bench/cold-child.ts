/**
 * Run by cold-start.ts in a FRESH node process: imports one bundle and invokes its handler once,
 * as the Lambda runtime does on a cold start, and prints the timings (see cold-protocol.ts).
 * Usage: node --enable-source-maps test/bench/cold-child.ts <bundle.mjs> <event.json>
 */

import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { pathToFileURL } from 'node:url';
import { COLD_RESULT_MARKER, type ColdRunResult } from './cold-protocol.ts';
import { lambdaContext } from './events.ts';

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode?: number } | undefined>;

const [bundlePath, eventPath] = process.argv.slice(2);
if (!bundlePath || !eventPath) throw new Error('usage: cold-child.ts <bundle.mjs> <event.json>');

// Prepared before the clock starts: only the bundle's own import and invoke are measured.
const event: unknown = JSON.parse(readFileSync(eventPath, 'utf8'));
const context = lambdaContext('bench-cold-start');

// Every HTTP request to DynamoDB Local, whichever code sends it: background functions write no
// request log line with a count of their own.
const dynamodbHost = new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? 'http://unset').host;
let dynamodbRequests = 0;
subscribe('http.client.request.start', (message) => {
  const { request } = message as { request: ClientRequest };
  if (request.getHeader('host') === dynamodbHost) dynamodbRequests++;
});

const bootMs = performance.now();
const { handler } = (await import(pathToFileURL(bundlePath).href)) as { handler: Handler };
const importedAt = performance.now();
const response = await handler(event, context);
const invokedAt = performance.now();

const result: ColdRunResult = {
  bootMs,
  importMs: importedAt - bootMs,
  invokeMs: invokedAt - importedAt,
  status: response?.statusCode,
  dynamodbRequests,
};
// Exit at once: the SDK's keep-alive sockets would otherwise hold the process open.
process.stdout.write(`${COLD_RESULT_MARKER}${JSON.stringify(result)}\n`, () => process.exit(0));
