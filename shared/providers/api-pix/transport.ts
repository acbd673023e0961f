/**
 * The wire under the API Pix adapter: HTTPS with the merchant's client certificate (mutual TLS,
 * server verification always on), an OAuth2 client-credentials token cached per credential
 * set, a timeout on every attempt and retries with backoff and jitter for idempotent calls, all
 * within the invocation's acquirer budget (`acquirerCallBudgets`, `../call-budget.ts`).
 */

import { createHash } from 'node:crypto';
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { countMetric } from '../../metrics.ts';
import { type AcquirerCallBudget, acquirerCallBudgets, observability } from '../../resources.ts';
import { acquirerCallScope } from '../call-budget.ts';
import { ProviderRequestError, ProviderUnavailableError } from '../provider.ts';
import { type ApiPixOperation, fromNetworkError, fromResponse, isTransient, retryAfterMs } from './errors.ts';

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

/**
 * Each figure defaults to the invocation's acquirer budget (`withAcquirerBudget`), or the
 * `request` budget outside any (`acquirerCallBudgets`, shared/resources.ts). Given here, it
 * overrides that budget's (tests); a call never outlives its invocation's deadline anyway.
 */
export interface TransportOptions {
  /** Bound on each attempt, the token request it may wait for included. */
  timeoutMs?: number;
  /** Further attempts of an idempotent call after a transient failure. */
  retries?: number;
  /** First backoff delay; doubles each time, randomized. */
  minRetryDelayMs?: number;
  /** Bound on the whole call: attempts, token requests and backoff. */
  totalMs?: number;
  /** The clock the token's lifetime is measured with (tests move it instead of waiting). */
  now?: () => number;
}

interface HttpAnswer {
  status: number;
  body: string;
  /** The `Retry-After` header, when the PSP sent one. */
  retryAfter: string | undefined;
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
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          retryAfter: res.headers['retry-after'],
        }),
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

  private readonly requestToken: (timeoutMs: number) => Promise<{ value: string; expiresInSeconds: number }>;
  private readonly now: () => number;

  constructor(
    requestToken: (timeoutMs: number) => Promise<{ value: string; expiresInSeconds: number }>,
    now: () => number,
  ) {
    this.requestToken = requestToken;
    this.now = now;
  }

  /** `timeoutMs` bounds a token request this call starts (one it joins has its own). */
  get(timeoutMs: number): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.requestToken(timeoutMs)
      .then(({ value, expiresInSeconds }) => {
        // Renew a minute early, or a tenth of a short lifetime, so no request leaves with a dying token.
        const margin = Math.min(60_000, expiresInSeconds * 100);
        this.token = { value, refreshAt: this.now() + expiresInSeconds * 1000 - margin };
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

interface ApiPixRequest {
  operation: ApiPixOperation;
  method: 'GET' | 'PUT' | 'PATCH';
  /** Below the base URL, already encoded: `/cob/abc…`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Repeating it has the effect of doing it once (PUT by id, GET, the cancelling PATCH): then it is retried. */
  idempotent: boolean;
}

interface ApiPixTransport {
  /** The answer's JSON on 2xx; the typed error of `fromResponse` otherwise. */
  call<T>(req: ApiPixRequest): Promise<T>;
}

/** One request with its own timeout; no answer at all is the port's unavailable error. */
async function exchange(
  agent: Agent,
  timeoutMs: number,
  operation: ApiPixOperation,
  request: { method: string; url: URL; headers: Record<string, string>; body?: string | undefined },
): Promise<HttpAnswer> {
  try {
    return await send(
      agent,
      request.method,
      request.url,
      request.headers,
      request.body,
      AbortSignal.timeout(timeoutMs),
    );
  } catch (error) {
    throw fromNetworkError(operation, error);
  }
}

/**
 * `work`, or `ProviderUnavailableError` once `ms` have passed (waiting for a token another call
 * requested: that request goes on, and its token is cached for the next attempt).
 */
function within<T>(work: Promise<T>, ms: number, operation: ApiPixOperation): Promise<T> {
  if (ms <= 0) return Promise.reject(new ProviderUnavailableError(`API Pix ${operation}: out of time`));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ProviderUnavailableError(`API Pix ${operation} timed out waiting for a token`)),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** `POST {tokenUrl}` with the client credentials in HTTP Basic (RFC 6749 §2.3.1). */
async function requestToken(
  credentials: ApiPixCredentials,
  agent: Agent,
  timeoutMs: number,
): Promise<{ value: string; expiresInSeconds: number }> {
  const basic = Buffer.from(
    `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
  ).toString('base64');
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (credentials.scopes) form.set('scope', credentials.scopes);
  const answer = await exchange(agent, timeoutMs, 'token', {
    method: 'POST',
    url: new URL(credentials.tokenUrl),
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: form.toString(),
  });
  const body = parseJson(answer.body) as { access_token?: unknown; expires_in?: unknown } | undefined;
  if (answer.status !== 200)
    throw fromResponse('token', answer.status, body, retryAfterMs(answer.retryAfter, Date.now()));
  if (typeof body?.access_token !== 'string')
    throw new ProviderUnavailableError('API Pix token answer has no access_token');
  return { value: body.access_token, expiresInSeconds: tokenLifetimeSeconds(body.expires_in) };
}

/** Assumed when a token answer has no `expires_in` (RFC 6749 §5.1 only recommends it): short, so a shorter real lifetime costs at most one 401 and renewal. */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 300;

/** A token answer's `expires_in`, or the conservative default when absent or not a positive number. */
export function tokenLifetimeSeconds(expiresIn: unknown): number {
  return typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0
    ? expiresIn
    : DEFAULT_TOKEN_LIFETIME_SECONDS;
}

interface Session {
  agent: Agent;
  tokens: TokenCache;
}

/**
 * One agent (keep-alive TLS connections) and one token cache per credential set, across adapter
 * instances: a Lambda builds an adapter per request, and they all share the token.
 */
const sessions = new Map<string, Session>();

function sessionFor(credentials: ApiPixCredentials, now: () => number): Session {
  // Hashed, so no secret or key sits in clear in the map's keys.
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        credentials.tokenUrl,
        credentials.clientId,
        credentials.clientSecret,
        credentials.cert,
        credentials.key,
        credentials.ca ?? '',
        credentials.scopes ?? '',
      ]),
    )
    .digest('hex');
  const known = sessions.get(key);
  if (known) return known;
  // rejectUnauthorized is explicit so NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn verification off.
  const agent = new Agent({
    cert: credentials.cert,
    key: credentials.key,
    ...(credentials.ca !== undefined && { ca: credentials.ca }),
    rejectUnauthorized: true,
    keepAlive: true,
  });
  // Not retried on its own: it runs inside the attempt of the call that needs it, which is.
  const session = {
    agent,
    tokens: new TokenCache((timeoutMs) => requestToken(credentials, agent, timeoutMs), now),
  };
  sessions.set(key, session);
  return session;
}

export function apiPixTransport(
  credentials: ApiPixCredentials,
  options: TransportOptions = {},
): ApiPixTransport {
  for (const url of [credentials.baseUrl, credentials.tokenUrl]) {
    // The client secret and the bearer token must never travel in clear.
    if (new URL(url).protocol !== 'https:') throw new Error(`API Pix URLs must be https: ${url}`);
  }
  const { now = Date.now } = options;
  const explicit: Partial<AcquirerCallBudget> = {
    ...(options.timeoutMs !== undefined && { attemptTimeoutMs: options.timeoutMs }),
    ...(options.retries !== undefined && { retries: options.retries }),
    ...(options.minRetryDelayMs !== undefined && { minRetryDelayMs: options.minRetryDelayMs }),
    ...(options.totalMs !== undefined && { totalMs: options.totalMs }),
  };
  const session = sessionFor(credentials, now);
  const base = credentials.baseUrl.replace(/\/+$/, '');

  return {
    call<T>(req: ApiPixRequest): Promise<T> {
      const url = new URL(`${base}${req.path}`);
      for (const [name, value] of Object.entries(req.query ?? {})) url.searchParams.set(name, value);
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      // Read per call: the budget is the invocation's (an API request, a scheduler run…), and a
      // call never outlives its deadline, so a slow PSP is a 503 before the Lambda times out.
      const scope = acquirerCallScope();
      const budget = { ...(scope?.budget ?? acquirerCallBudgets.request), ...explicit };
      const start = Date.now();
      const deadline = Math.min(scope?.deadline ?? Number.POSITIVE_INFINITY, start + budget.totalMs);
      const attempt = async (): Promise<T> => {
        // Token request, exchange and a renewal all within one attempt's time.
        const attemptEnd = Math.min(Date.now() + budget.attemptTimeoutMs, deadline);
        const left = () => attemptEnd - Date.now();
        // A token refused before its time is renewed once, within the same attempt.
        for (let renewed = false; ; renewed = true) {
          const token = await within(session.tokens.get(left()), left(), req.operation);
          if (left() <= 0) throw new ProviderUnavailableError(`API Pix ${req.operation}: out of time`);
          const answer = await exchange(session.agent, left(), req.operation, {
            method: req.method,
            url,
            headers: {
              authorization: `Bearer ${token}`,
              // The standard answers errors as problem+json (RFC 7807): a strict PSP checks Accept.
              accept: 'application/json, application/problem+json',
              ...(body !== undefined && { 'content-type': 'application/json' }),
            },
            body,
          });
          if (answer.status === 401 && !renewed) {
            session.tokens.invalidate(token);
            continue;
          }
          const parsed = parseJson(answer.body);
          if (answer.status >= 200 && answer.status < 300) return parsed as T;
          throw fromResponse(
            req.operation,
            answer.status,
            parsed,
            retryAfterMs(answer.retryAfter, Date.now()),
          );
        }
      };
      // The invocation's time is spent (a scheduler run's earlier calls): nothing is sent, so it
      // is neither a call of the acquirer nor its failure (the error rate alarm is about the PSP).
      if (deadline <= start)
        return Promise.reject(
          new ProviderUnavailableError(`API Pix ${req.operation}: not sent, the invocation's time is spent`),
        );
      countMetric('live', { [observability.metrics.acquirerCalls]: 1 }, { acquirers: url.host });
      return pRetry(attempt, {
        retries: req.idempotent ? budget.retries : 0,
        // No retry, nor backoff, past the deadline.
        maxRetryTime: Math.max(0, deadline - start),
        minTimeout: budget.minRetryDelayMs,
        maxTimeout: budget.minRetryDelayMs * 16,
        factor: 2,
        randomize: true,
        shouldRetry: async ({ error }) => {
          if (!isTransient(error)) return false;
          // The PSP said when to come back (429, 503): not sooner, where a retry is refused again,
          // and not at all when that is past the deadline (answered now rather than late).
          const wait = (error as ProviderUnavailableError).retryAfterMs;
          if (wait === undefined) return true;
          if (Date.now() + wait >= deadline) return false;
          await sleep(wait);
          return true;
        },
      }).catch((error: unknown) => {
        // The acquirer's failures (no answer, 5xx, credentials refused); not its business answers
        // (a charge refused, a cob not found), which are the merchant's or the payer's.
        if (error instanceof ProviderUnavailableError || error instanceof ProviderRequestError)
          countMetric('live', { [observability.metrics.acquirerErrors]: 1 }, { acquirers: url.host });
        throw error;
      });
    },
  };
}
