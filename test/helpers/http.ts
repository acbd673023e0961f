/** A merchant's-eye HTTP client for the integration tests: real requests to the local runtime. */

import { inject } from 'vitest';
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
  const response = await fetch(`${call.baseUrl ?? testBaseUrl}${path}`, {
    method: call.method ?? (body ? 'POST' : 'GET'),
    headers,
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
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
