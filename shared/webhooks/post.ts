/**
 * One delivery attempt: POST the raw body to a checked destination, connecting to exactly the
 * checked address (the hostname still drives TLS SNI and the Host header), never following
 * redirects, giving up after the timeout. What comes back is recorded, not thrown.
 */

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from './destination.ts';

const MAX_RESPONSE_BYTES = 64 * 1024;

interface AttemptResult {
  statusCode?: number;
  /** First bytes of the response body. */
  body?: string;
  retryAfter?: string;
  error?: string;
  timedOut?: boolean;
}

export function postWebhook(
  destination: Destination,
  body: string,
  headers: Record<string, string>,
  /** The attempt's whole time, which the answers name. */
  timeoutMs: number,
  /** When it ends (epoch ms): later than `timeoutMs` from now when the attempt began earlier (its lookup). */
  endsAt = Date.now() + timeoutMs,
): Promise<AttemptResult> {
  const leftMs = Math.max(1, endsAt - Date.now());
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    } else callback(null, destination.address, destination.family);
  };
  const send = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    /** The status line and the body so far, once the status came: a 2xx whose body then stalls was still accepted. */
    let answered: (() => AttemptResult) | undefined;
    const done = (result: AttemptResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const req = send(
      destination.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
        timeout: leftMs,
        agent: false,
        // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn certificate checks off.
        rejectUnauthorized: true,
      },
      (res) => {
        const retryAfter = res.headers['retry-after'];
        const soFar = (): AttemptResult => ({
          statusCode: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
          ...(typeof retryAfter === 'string' && { retryAfter }),
        });
        answered = soFar;
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => done(soFar()));
        res.on('error', (error) => done({ statusCode: res.statusCode ?? 0, error: error.message }));
      },
    );
    // The whole attempt, not just idle time, is bounded. A 2xx already received is the receiver's
    // acceptance (Part 2: a 2xx gives DELIVERED) even if its body never ends: keep what came. Any
    // other status that came is kept too, with its Retry-After (a 429 or 503 whose body stalls).
    const timeOut = () => {
      const came = answered?.();
      const accepted = came?.statusCode !== undefined && came.statusCode >= 200 && came.statusCode < 300;
      if (!came) done({ error: `Timed out after ${timeoutMs} ms`, timedOut: true });
      else if (accepted) done({ statusCode: came.statusCode, body: came.body });
      else done({ ...came, error: `The response body did not end within ${timeoutMs} ms`, timedOut: true });
      req.destroy();
    };
    const timer = setTimeout(timeOut, leftMs);
    req.on('timeout', timeOut);
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({ error: error.code ? `${error.code}: ${error.message}` : error.message }),
    );
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}
