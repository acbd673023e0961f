/**
 * The wire under the API Pix adapter: HTTPS with the merchant's client certificate (mutual TLS,
 * server verification always on), an OAuth2 client-credentials token cached per credential
 * set, a timeout on every attempt and retries with backoff and jitter for idempotent calls.
 */

import { createHash } from 'node:crypto';
import { Agent, request } from 'node:https';
import pRetry from 'p-retry';
import { type ApiPixOperation, fromNetworkError, fromResponse, isTransient } from './errors.ts';

/** What a PSP issues to a merchant for its API Pix. PEM strings, never file paths. */
export interface ApiPixCredentials {
  /** API Pix base URL, e.g. `https://pix.psp.example/api/v2`. */
  baseUrl: string;
  /** OAuth2 token endpoint (client credentials over the same mutual TLS). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The merchant's client certificate and its private key. */
  cert: string;
  key: string;
  /** The PSP's CA when it is not a public one. */
  ca?: string;
  /** Space-separated OAuth2 scopes, when the PSP wants them named. */
  scopes?: string;
}

export interface TransportOptions {
  /** Bound on each attempt (default 10 s). */
  timeoutMs?: number;
  /** Further attempts of an idempotent call after a transient failure (default 3). */
  retries?: number;
  /** First backoff delay; doubles each time, randomized (default 200 ms). */
  minRetryDelayMs?: number;
}

interface HttpAnswer {
  status: number;
  body: string;
}

/** Longest answer read (a `GET /pix` page of 1,000 items is far below). */
const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

function send(
  agent: Agent,
  method: string,
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers, signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) req.destroy(new Error('API Pix answer too large'));
        else chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const parseJson = (text: string): unknown => {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * One access token per credential set, shared by every caller: a cached token is used until
 * shortly before it expires, and concurrent callers that find none wait for the same request.
 */
class TokenCache {
  private token: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  private readonly requestToken: () => Promise<{ value: string; expiresInSeconds: number }>;

  constructor(requestToken: () => Promise<{ value: string; expiresInSeconds: number }>) {
    this.requestToken = requestToken;
  }

  get(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.requestToken()
      .then(({ value, expiresInSeconds }) => {
        // Renew a minute early, or a tenth of a short lifetime, so no request leaves with a dying token.
        const margin = Math.min(60_000, expiresInSeconds * 100);
        this.token = { value, refreshAt: Date.now() + expiresInSeconds * 1000 - margin };
        return value;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** The PSP refused this token before its time (revoked, PSP restarted): forget it. */
  invalidate(value: string): void {
    if (this.token?.value === value) this.token = undefined;
  }
}

export interface ApiPixRequest {
  operation: ApiPixOperation;
  method: 'GET' | 'PUT' | 'PATCH';
  /** Below the base URL, already encoded: `/cob/abc…`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Repeating it has the effect of doing it once (PUT by id, GET, the cancelling PATCH): then it is retried. */
  idempotent: boolean;
}

export interface ApiPixTransport {
  /** The answer's JSON on 2xx; the typed error of `fromResponse` otherwise. */
  call<T>(req: ApiPixRequest): Promise<T>;
}

/** One agent (keep-alive TLS connections) and one token cache per credential set, across adapter instances. */
const sessions = new Map<string, { agent: Agent; tokens: TokenCache }>();

const sessionKey = (c: ApiPixCredentials): string =>
  createHash('sha256')
    .update(
      JSON.stringify([c.tokenUrl, c.clientId, c.clientSecret, c.cert, c.key, c.ca ?? '', c.scopes ?? '']),
    )
    .digest('hex');

export function apiPixTransport(
  credentials: ApiPixCredentials,
  options: TransportOptions = {},
): ApiPixTransport {
  for (const url of [credentials.baseUrl, credentials.tokenUrl]) {
    // The client secret and the bearer token must never travel in clear.
    if (new URL(url).protocol !== 'https:') throw new Error(`API Pix URLs must be https: ${url}`);
  }
  const { timeoutMs = 10_000, retries = 3, minRetryDelayMs = 200 } = options;
  const key = sessionKey(credentials);

  const withRetries = <T>(idempotent: boolean, attempt: () => Promise<T>): Promise<T> =>
    pRetry(attempt, {
      retries: idempotent ? retries : 0,
      minTimeout: minRetryDelayMs,
      maxTimeout: minRetryDelayMs * 16,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => isTransient(error),
    });

  const exchange = async (
    operation: ApiPixOperation,
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<HttpAnswer> => {
    try {
      return await send(session.agent, method, url, headers, body, AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw fromNetworkError(operation, error);
    }
  };

  // Not retried on its own: it runs inside the attempt of the call that needs it, which is.
  const requestToken = async () => {
    const basic = Buffer.from(
      `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
    ).toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (credentials.scopes) form.set('scope', credentials.scopes);
    const answer = await exchange(
      'token',
      'POST',
      new URL(credentials.tokenUrl),
      {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      form.toString(),
    );
    const body = parseJson(answer.body) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (answer.status !== 200) throw fromResponse('token', answer.status, body);
    if (typeof body?.access_token !== 'string' || typeof body.expires_in !== 'number')
      throw fromResponse('token', 502, undefined);
    return { value: body.access_token, expiresInSeconds: body.expires_in };
  };

  const session =
    sessions.get(key) ??
    (() => {
      const created = {
        // rejectUnauthorized is explicit so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn verification off.
        agent: new Agent({
          cert: credentials.cert,
          key: credentials.key,
          ...(credentials.ca !== undefined && { ca: credentials.ca }),
          rejectUnauthorized: true,
          keepAlive: true,
        }),
        tokens: new TokenCache(requestToken),
      };
      sessions.set(key, created);
      return created;
    })();

  const base = credentials.baseUrl.replace(/\/+$/, '');

  return {
    call<T>(req: ApiPixRequest): Promise<T> {
      const url = new URL(`${base}${req.path}`);
      for (const [name, value] of Object.entries(req.query ?? {})) url.searchParams.set(name, value);
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      return withRetries(req.idempotent, async () => {
        // A token refused before its time is renewed once, within the same attempt.
        for (let renewed = false; ; renewed = true) {
          const token = await session.tokens.get();
          const answer = await exchange(
            req.operation,
            req.method,
            url,
            {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              ...(body !== undefined && { 'content-type': 'application/json' }),
            },
            body,
          );
          if (answer.status === 401 && !renewed) {
            session.tokens.invalidate(token);
            continue;
          }
          const parsed = parseJson(answer.body);
          if (answer.status >= 200 && answer.status < 300) return parsed as T;
          throw fromResponse(req.operation, answer.status, parsed);
        }
      });
    },
  };
}
