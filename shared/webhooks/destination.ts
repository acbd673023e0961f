/**
 * Where a webhook may go. A URL is checked at registration and again at every delivery on the
 * addresses its host resolves to NOW; the delivery then connects to the address that was
 * checked (never resolving again), so a DNS answer that changes between check and connect
 * (rebinding) cannot redirect it.
 */

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { config } from '../config.ts';
import { InvalidInput } from '../domain/errors.ts';
import { type AddressPolicy, isForbiddenAddress } from '../domain/ssrf.ts';
import { isJsonObject } from '../domain/validation.ts';

export class DestinationError extends Error {
  override readonly name = 'DestinationError';
  /** The lookup did not answer in time: retried as a timeout is (docs/infrastructure.md). */
  readonly timedOut: boolean;
  constructor(message: string, timedOut = false) {
    super(message);
    this.timedOut = timedOut;
  }
}

const LOOKUP_TIMED_OUT = 'ETIMEOUT';

interface DestinationPolicy extends AddressPolicy {
  allowHttp: boolean;
}

/** Deployed: https only, no private addresses. `ALLOW_HTTP_WEBHOOKS=true` (local runtime): http and 127.0.0.1 too. */
export const destinationPolicy = (): DestinationPolicy => {
  const local = config.allowHttpWebhooks;
  return { allowHttp: local, allowLoopback: local };
};

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** `work`, or an `ETIMEOUT` failure after `ms`. */
function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`timed out after ${ms} ms`), { code: LOOKUP_TIMED_OUT })),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface Destination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Validates the URL's form (no network). */
function parseWebhookUrl(raw: string, policy: DestinationPolicy): URL {
  // The URL is stored and shown as sent, so it must be one the parser did not have to repair:
  // `new URL` trims spaces, drops tabs and newlines and reads `http:host` as `http://host`.
  if (!/^https?:\/\//i.test(raw) || /[\s\p{Cc}]/u.test(raw))
    throw new DestinationError(
      'Must be an absolute http(s) URL, written out, with no spaces or control characters',
    );
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError('Must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw new DestinationError(policy.allowHttp ? 'Must use https or http' : 'Must use https');
  }
  if (url.username || url.password) throw new DestinationError('Must not contain credentials');
  if (url.hash) throw new DestinationError('Must not contain a fragment');
  if (url.port === '0') throw new DestinationError('Must not use port 0');
  if (raw.length > 2048) throw new DestinationError('Must be at most 2048 characters');
  return url;
}

/**
 * Resolves the host and checks every address it resolves to; returns the one to connect to. With
 * `timeoutMs`, a lookup that has not answered by then fails (the system resolver's own retries
 * can take longer than a delivery attempt may).
 */
export async function resolveDestination(
  raw: string,
  policy: DestinationPolicy,
  resolver: Resolver = systemResolver,
  timeoutMs?: number,
): Promise<Destination> {
  const url = parseWebhookUrl(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (timeoutMs === undefined ? resolver(host) : withinMs(resolver(host), timeoutMs));
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      if (code === LOOKUP_TIMED_OUT) throw new DestinationError(`DNS lookup of ${host} ${message}`, true);
      throw new DestinationError(`DNS lookup of ${host} failed: ${code ?? String(error)}`);
    }
  }
  if (addresses.length === 0) throw new DestinationError(`${host} has no address`);
  const bad = addresses.find((a) => isForbiddenAddress(a.address, policy));
  if (bad) throw new DestinationError(`${host} resolves to a forbidden address (${bad.address})`);
  const first = addresses[0] as { address: string; family: number };
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * Registration-time check of a URL a client gives us (an endpoint's `url`, a payment's
 * `webhookUrl`): a 400 on `param` when it could not be delivered to. Every delivery checks again.
 */
export async function assertDeliverableUrl(url: string, param = 'url'): Promise<void> {
  try {
    await resolveDestination(url, destinationPolicy());
  } catch (error) {
    if (error instanceof DestinationError)
      throw new InvalidInput(`Invalid ${param}: ${error.message}`, { param });
    throw error;
  }
}

/**
 * Parses a body that holds a URL to deliver to (`param`), so that one 400 names every problem:
 * when the body fails for another field, the URL is checked too, DNS lookup included, and its
 * problem joins `details` (a merchant fixing the other field would otherwise meet a second 400).
 * The lookup costs what a valid request's does, and requests are rate-limited per key. A body
 * that passes leaves the URL to the use case's own `assertDeliverableUrl`, so it is checked once.
 */
export async function parseWithDestination<T>(parse: () => T, body: unknown, param: string): Promise<T> {
  try {
    return parse();
  } catch (error) {
    const url = isJsonObject(body) ? body[param] : undefined;
    // The schema's own verdict on the URL (not a string, too long) stands alone.
    if (
      !(error instanceof InvalidInput) ||
      error.details === undefined ||
      typeof url !== 'string' ||
      error.details.some((d) => d.param === param)
    )
      throw error;
    const { details } = error;
    const urlError = await assertDeliverableUrl(url, param).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    if (!(urlError instanceof InvalidInput)) throw error;
    throw error.withDetails([...details, ...(urlError.details ?? [])]);
  }
}
