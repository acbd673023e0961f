/** A merchant's-eye HTTP client for the integration tests: real requests to the local runtime. */

import { request } from 'node:http';
import { inject } from 'vitest';
import { contractViolation } from './contract.ts';
import { testBaseUrl } from './local-env.ts';

export interface ApiCall {
  method?: string;
  apikey?: string;
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON tests); overrides `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Another runtime than the suite's (a test that starts its own). */
  baseUrl?: string;
  /**
   * The loopback address to send from (`127.0.0.2`…: all of 127/8 is this machine), so the
   * runtime sees another client IP, as API Gateway's `sourceIp` would.
   */
  localAddress?: string;
}

export interface ApiReply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function api<T = any>(path: string, call: ApiCall = {}): Promise<ApiReply<T>> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.apikey !== undefined) headers.apikey = call.apikey;
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  let body: string | undefined = call.rawBody;
  if (body === undefined && call.body !== undefined) body = JSON.stringify(call.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = `${call.baseUrl ?? testBaseUrl}${path}`;
  const method = call.method ?? (body ? 'POST' : 'GET');
  // fetch binds no local address and sends no body with a GET: node:http does both, as a client may.
  const viaNodeHttp = call.localAddress !== undefined || (body !== undefined && method === 'GET');
  const response = viaNodeHttp
    ? await send(url, { method, headers, body, localAddress: call.localAddress })
    : await fetch(url, { method, headers, body });
  const text = await response.text();
  // fetch's answers pass the contract check of every fetch (contract-fetch.ts); these do it here.
  const violation = viaNodeHttp
    ? contractViolation(method, new URL(url), response.status, response.headers.get('content-type'), text)
    : undefined;
  if (violation) throw new Error(`OpenAPI contract broken: ${violation}`);
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The request through `node:http`, from `localAddress` if given; a body is framed by its length. */
function send(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body: string | undefined;
    localAddress: string | undefined;
  },
): Promise<Response> {
  const headers =
    init.body === undefined
      ? init.headers
      : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
  return new Promise((resolve, reject) => {
    const options = {
      method: init.method,
      headers,
      ...(init.localAddress && { localAddress: init.localAddress }),
    };
    const sent = request(url, options, (reply) => {
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('error', reject);
      reply.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(reply.headers))
          for (const one of [value ?? []].flat()) headers.append(name, one);
        resolve(
          new Response(chunks.length > 0 ? Buffer.concat(chunks) : null, {
            status: reply.statusCode ?? 0,
            headers,
          }),
        );
      });
    });
    sent.on('error', reject);
    sent.end(init.body);
  });
}

export const demo = () => inject('demo');

export async function login(email: string, password: string, accountId?: string): Promise<string> {
  const reply = await api('/v1/auth/login', {
    body: { email, password, ...(accountId && { account_id: accountId }) },
  });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.token;
}

/** Asserts the spec's error envelope and that `request_id` matches the header. */
export function expectError(reply: ApiReply, status: number, type: string, code: string): void {
  const problems: string[] = [];
  if (reply.status !== status) problems.push(`status ${reply.status} ≠ ${status}`);
  if (reply.body?.error?.type !== type) problems.push(`type ${reply.body?.error?.type} ≠ ${type}`);
  if (reply.body?.error?.code !== code) problems.push(`code ${reply.body?.error?.code} ≠ ${code}`);
  if (typeof reply.body?.error?.message !== 'string') problems.push('no message');
  if (!reply.body?.request_id || reply.body.request_id !== reply.headers.get('x-request-id'))
    problems.push('request_id ≠ X-Request-Id');
  if (problems.length) throw new Error(`${problems.join('; ')}: ${JSON.stringify(reply.body).slice(0, 600)}`);
}
