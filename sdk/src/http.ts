/**
 * The transport every resource uses: Node's fetch, one credential per route, automatic
 * idempotency keys on creates, and retries with exponential backoff and jitter.
 *
 * Retry policy: a 429 is always retried (the service refused it before doing anything); a 5xx,
 * a timeout or a dropped connection only when repeating the request cannot do the work twice,
 * i.e. reads, PATCH/DELETE, and creates that carry an idempotency key (the same key on every
 * attempt). Another POST (a sandbox payment, a secret rotation) is retried after a network
 * failure only if the connection was refused, so it never reached the service. Other 4xx are
 * never retried. An answer cut off mid-body counts as a lost answer. A DELETE retried after a
 * lost answer that then gets 404 resolves as deleted (`ApiRequest.goneAnswer` says why).
 */

import { ApiError, ConnectionError, errorFromResponse, parseRetryAfter } from './errors.ts';

const SDK_VERSION = '0.1.0';

export interface ClientOptions {
  /** The service's address, e.g. `http://127.0.0.1:3000` or the stack's `ApiUrl`. */
  baseUrl: string;
  /**
   * `ak_test_…` or `ak_live_…`, for every merchant route. `undefined` is accepted (under
   * `exactOptionalPropertyTypes` too) so `process.env.PIX_API_KEY` can be passed as is; a route
   * that needs the key then throws before sending anything.
   */
  apiKey?: string | undefined;
  /** A dashboard token from `auth.login`, for `apiKeys` and `auth.logout` (`undefined` as for `apiKey`). */
  token?: string | undefined;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff delay (default 500 ms); doubles each retry, with jitter. */
  initialRetryDelayMs?: number;
  /** Backoff ceiling (default 8 s). */
  maxRetryDelayMs?: number;
  /** A longer `Retry-After` than this is not waited for: the error is thrown (default 60 s). */
  maxRetryAfterMs?: number;
  /** Each attempt's limit (default 30 s). */
  timeoutMs?: number;
}

export interface RequestOptions {
  /** Overrides the generated key of a create; the same key is sent on every retry (`undefined`: generated). */
  idempotencyKey?: string | undefined;
  maxRetries?: number;
  timeoutMs?: number;
  headers?: Record<string, string>;
  /**
   * Cancels the call: the attempt in flight is aborted, no retry follows (a backoff wait ends at
   * once), and the call rejects with `signal.reason` (an `AbortError` unless you gave another),
   * as `fetch` does. A create cancelled mid-flight may still have been done: retry it with the
   * same `idempotencyKey` to find out.
   */
  signal?: AbortSignal | undefined;
}

/** What the service answered besides the body of a call: `responseOf(result)`. */
export interface ResponseInfo {
  statusCode: number;
  headers: Headers;
  /** `X-Request-Id`: quote it to support (errors carry it as `requestId`). */
  requestId: string | undefined;
  /** `Idempotent-Replayed: true`: the stored answer of an earlier create with the same key, nothing new was done. */
  idempotentReplayed: boolean;
  /** Attempts after the first (429s, 5xx, lost answers) before this answer. */
  retries: number;
}

const responses = new WeakMap<object, ResponseInfo>();

/**
 * The status and headers behind a value a call resolved with (a charge, a page, a list…), e.g.
 * whether a create was replayed: `responseOf(charge)?.idempotentReplayed`. Undefined for a
 * value no call returned, for a call that resolves with nothing (`auth.logout`), and for a
 * delete resolved from a retry's 404 (`goneAnswer`).
 */
export const responseOf = (result: unknown): ResponseInfo | undefined =>
  typeof result === 'object' && result !== null ? responses.get(result) : undefined;

/** How a route authenticates (the service's route manifest): merchant key, dashboard token or none. */
export type Auth = 'apikey' | 'token' | 'none';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  auth: Auth;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  /** Sent as the `Idempotency-Key` header (charge creation). */
  idempotencyKeyHeader?: string | undefined;
  /** The request is safe to repeat after a 5xx or a lost answer (an idempotency key in its body). */
  repeatable?: boolean;
  /**
   * A DELETE's success answer, returned when a retry gets 404 after an attempt whose answer was
   * lost (dropped, cut off, timed out or a 5xx): that attempt most likely did the delete, and
   * the retry finds the resource gone.
   *
   * Why not throw the 404: the service keeps no idempotency record for a DELETE, so a repeated
   * one cannot replay the first answer. Stripe's SDK does not special-case this either: for its
   * v1 API it retries a DELETE after a network error and surfaces the retry's 404
   * (`resource_missing`), and for its v2 API it sends an `Idempotency-Key` on DELETE so the
   * server replays the first attempt's answer. Without that server support, the closest to
   * Stripe v2 is to answer here what the first attempt would have: the merchant asked for the
   * resource to be gone, and it is. (Not retrying DELETE instead would turn every lost answer
   * into an error the merchant must investigate.) The one misreport: an id that never existed,
   * whose first answer was lost, is reported deleted, which is still the state the caller wanted.
   * A 404 on the first attempt, or after only 429s or refused connections, is thrown as usual.
   */
  goneAnswer?: unknown;
}

type RetrySettings = Required<
  Pick<
    ClientOptions,
    'maxRetries' | 'initialRetryDelayMs' | 'maxRetryDelayMs' | 'maxRetryAfterMs' | 'timeoutMs'
  >
>;

const DEFAULTS: RetrySettings = {
  maxRetries: 2,
  initialRetryDelayMs: 500,
  maxRetryDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
};

/**
 * The pause before retry number `retry` (1 for the first): exponential backoff with "equal
 * jitter" (half fixed, half random, so concurrent clients spread out yet every wait grows), and
 * never shorter than the server's `Retry-After`. Undefined: the server asks for longer than
 * `maxRetryAfterMs`, so the caller gets the error instead of a long silent wait.
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  settings: Pick<RetrySettings, 'initialRetryDelayMs' | 'maxRetryDelayMs' | 'maxRetryAfterMs'>,
  random: () => number = Math.random,
): number | undefined {
  const backoff = Math.min(settings.maxRetryDelayMs, settings.initialRetryDelayMs * 2 ** (retry - 1));
  const jittered = backoff / 2 + (random() * backoff) / 2;
  if (retryAfterMs === undefined) return jittered;
  if (retryAfterMs > settings.maxRetryAfterMs) return undefined;
  return Math.max(retryAfterMs, jittered);
}

/** A backoff wait that the caller's signal ends at once, rejecting with its reason. */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

/** The connection was refused: the request never reached the service, so even a plain POST may be sent again. */
const neverSent = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
};

/** No (whole) answer: `code` tells a timeout from a refused or dropped connection. */
const connectionError = (what: string, cause: unknown) =>
  new ConnectionError({
    message: `${what}: ${(cause as Error | undefined)?.message ?? String(cause)}`,
    type: 'connection_error',
    code: (cause as { name?: string } | undefined)?.name === 'TimeoutError' ? 'timeout' : 'connection_failed',
    cause,
  });

interface FetchPlan {
  /** Repeating the request after a 5xx or a lost answer cannot do the work twice. */
  repeatable: boolean;
  maxRetries: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** One whole answer: status, headers and the body read to its end. */
export interface Answer {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
  /**
   * An earlier attempt may have reached the service and done the work without this client
   * learning it: its answer was lost, cut off, timed out or a 5xx (not a 429 or a refused
   * connection, which did nothing).
   */
  afterUncertainAttempt: boolean;
  /** Attempts before this one. */
  retries: number;
}

/**
 * `fetch` with the retry policy above, the body read inside each attempt: an answer cut off
 * mid-body is a lost answer, retried like a dropped connection when the request is repeatable.
 * Returns the final whole answer (2xx or not); throws a `ConnectionError` when the last attempt
 * got none.
 */
async function fetchWithRetries(
  url: string,
  init: RequestInit,
  plan: FetchPlan,
  settings: RetrySettings,
): Promise<Answer> {
  let afterUncertainAttempt = false;
  for (let retry = 0; ; retry++) {
    let response: Response | undefined;
    let text: string | undefined;
    let failure: unknown;
    plan.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(plan.timeoutMs);
    try {
      // No redirect is followed: the API never redirects, and one in front of it (http → https)
      // would turn a POST into a GET whose answer would then pass for the create's. A 3xx is
      // answered as the error it is (`http_301`…), with its headers.
      response = await fetch(url, {
        redirect: 'manual',
        ...init,
        signal: plan.signal ? AbortSignal.any([plan.signal, timeout]) : timeout,
      });
      // The attempt's timeout also covers reading the body.
      text = await response.text();
    } catch (error) {
      // The caller cancelled: no retry, and fetch's own rejection (the signal's reason).
      if (plan.signal?.aborted) throw plan.signal.reason;
      failure = error;
    }
    let retryable: boolean;
    if (response?.status === 429) retryable = true;
    else if (response && text !== undefined) retryable = response.status >= 500 && plan.repeatable;
    else retryable = plan.repeatable || (!response && neverSent(failure));
    const delay =
      retryable && retry < plan.maxRetries
        ? retryDelayMs(
            retry + 1,
            response ? parseRetryAfter(response.headers.get('retry-after')) : undefined,
            settings,
          )
        : undefined;
    if (delay === undefined) {
      if (response && text !== undefined) {
        return {
          status: response.status,
          ok: response.ok,
          headers: response.headers,
          text,
          afterUncertainAttempt,
          retries: retry,
        };
      }
      throw response
        ? connectionError(`The answer from ${new URL(url).origin} was cut off`, failure)
        : connectionError(`No answer from ${new URL(url).origin}`, failure);
    }
    if (response ? response.status !== 429 : !neverSent(failure)) afterUncertainAttempt = true;
    await sleep(delay, plan.signal);
  }
}

export class HttpClient {
  readonly settings: RetrySettings;
  private readonly baseUrl: string;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.settings = {
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      initialRetryDelayMs: options.initialRetryDelayMs ?? DEFAULTS.initialRetryDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    };
  }

  /** Sends one API request and returns its parsed JSON body (undefined for 204), or throws a typed error. */
  async request<T>(request: ApiRequest, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    // Header names are case-insensitive: the caller's `Idempotency-Key` or `Apikey` replaces the
    // SDK's rather than being sent beside it (fetch would join the two into one invalid value).
    const headers = new Headers({
      accept: 'application/json',
      'user-agent': `pix-service-sdk/${SDK_VERSION} node/${process.versions.node}`,
      ...this.credentialHeaders(request.auth),
    });
    const own = new Headers(options.headers);
    for (const [name, value] of own) headers.set(name, value);
    // A key the caller put in the headers is theirs, kept on every retry like `idempotencyKey`.
    if (request.idempotencyKeyHeader !== undefined && !own.has('idempotency-key'))
      headers.set('idempotency-key', request.idempotencyKeyHeader);
    if (request.body !== undefined) headers.set('content-type', 'application/json');
    const answer = await this.fetch(
      url.toString(),
      {
        method: request.method,
        headers,
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      },
      request.method !== 'POST' || request.idempotencyKeyHeader !== undefined || request.repeatable === true,
      options,
    );
    if (
      answer.status === 404 &&
      request.method === 'DELETE' &&
      answer.afterUncertainAttempt &&
      request.goneAnswer !== undefined
    ) {
      // See `goneAnswer`: the earlier attempt most likely did the delete.
      return { ...(request.goneAnswer as object) } as T;
    }
    let body: unknown;
    let parsed = true;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      parsed = false;
    }
    if (!answer.ok) throw errorFromResponse(answer.status, body, answer.headers);
    // A 2xx that is not JSON (a proxy's or captive portal's page) is no answer of the service.
    if (!parsed)
      throw new ApiError({
        message: `HTTP ${answer.status} with a body that is not JSON`,
        type: 'api_error',
        code: 'invalid_response',
        requestId: answer.headers.get('x-request-id') ?? undefined,
        statusCode: answer.status,
        headers: answer.headers,
      });
    if (typeof body === 'object' && body !== null)
      responses.set(body, {
        statusCode: answer.status,
        headers: answer.headers,
        requestId: answer.headers.get('x-request-id') ?? undefined,
        idempotentReplayed: answer.headers.get('idempotent-replayed') === 'true',
        retries: answer.retries,
      });
    return body as T;
  }

  /**
   * `fetch` of any URL (an API route, or a presigned storage URL) with this client's retry
   * policy and the call's overrides: the final whole answer, 2xx or not.
   */
  fetch(url: string, init: RequestInit, repeatable: boolean, options: RequestOptions = {}): Promise<Answer> {
    return fetchWithRetries(
      url,
      init,
      {
        repeatable,
        maxRetries: options.maxRetries ?? this.settings.maxRetries,
        timeoutMs: options.timeoutMs ?? this.settings.timeoutMs,
        signal: options.signal,
      },
      this.settings,
    );
  }

  private credentialHeaders(auth: Auth): Record<string, string> {
    if (auth === 'none') return {};
    if (auth === 'apikey') {
      if (!this.options.apiKey)
        throw new TypeError('This route needs an API key: pass `apiKey` to the client.');
      return { apikey: this.options.apiKey };
    }
    if (!this.options.token) {
      throw new TypeError(
        'This route needs a dashboard token: pass `token` (from auth.login) to the client.',
      );
    }
    return { authorization: `Bearer ${this.options.token}` };
  }
}

/** A new idempotency key for a create the caller gave none for. */
export const newIdempotencyKey = (): string => `sdk-${crypto.randomUUID()}`;
