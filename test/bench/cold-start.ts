/**
 * Cold init per bundle: each run is a fresh `node` that imports the bundle and invokes it once
 * (cold-child.ts) against the bench runtime's DynamoDB Local. Runs are interleaved across the
 * bundles so that a slow moment of the machine is spread over all of them, and medians reported.
 */

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { DemoAccount } from '../../infra/local/seed.ts';
import { type LocalSettings, localEnvironment } from '../../infra/local/settings.ts';
import { type Group, routesOfGroup } from '../../shared/routes.ts';
import type { BundleInfo } from './bundle.ts';
import { COLD_RESULT_MARKER, type ColdRunResult } from './cold-protocol.ts';
import { apiGatewayEvent, type RequestSpec } from './events.ts';
import { type RequestLog, runtimeJwtSecret } from './runtime.ts';
import { median, round } from './stats.ts';

const run = promisify(execFile);
const CHILD_SCRIPT = join(import.meta.dirname, 'cold-child.ts');
/** One import + invoke takes well under a second; a hung child must not hang the bench. */
const CHILD_TIMEOUT_MS = 20_000;

export interface ColdTarget {
  bundle: BundleInfo;
  /** Defaults to the bundle's name. */
  label?: string;
  /**
   * ServiceFunction sets NODE_OPTIONS=--enable-source-maps, which makes Node read and parse the
   * bundle's source map at import: on by default, off to show what that costs.
   */
  sourceMaps?: boolean;
  /** What the first invoke of an API group receives; the others get `{}`. */
  request?: RequestSpec;
}

export interface ColdStartResult {
  name: string;
  route: string;
  runs: number;
  status: number | undefined;
  dynamodbCalls: number | undefined;
  medianBootMs: number;
  medianImportMs: number;
  medianInvokeMs: number;
  medianInitPlusInvokeMs: number;
  warning?: string;
}

/**
 * A request per group that runs the whole stack without a dashboard token: the in-memory
 * runtime signs tokens with a random secret this process cannot know. 401s are expected.
 */
export function coldStartRequest(group: Group, demo: DemoAccount): RequestSpec {
  const apikey = { apikey: demo.test_api_key };
  switch (group) {
    case 'charges':
      // The demo account's charges, first page (none: the load test uses its own account).
      return { method: 'GET', path: '/v1/charges', headers: apikey };
    case 'checkout':
      // Public, no DynamoDB: derives the Pix signing key from PIX_SIGNING_SECRET (HKDF, P-256).
      return { method: 'GET', path: '/.well-known/jwks.json' };
    case 'sandbox':
      // Authenticated, then rejected by the body validation: 400.
      return { method: 'POST', path: '/v1/sandbox/acquirer', headers: apikey, body: { status: 'sideways' } };
    case 'wallets':
      return { method: 'GET', path: '/v1/wallets/balance', headers: apikey };
    case 'auth':
      // A known e-mail with a wrong password: user lookup, one scrypt, then 401.
      return {
        method: 'POST',
        path: '/v1/auth/login',
        body: { email: demo.email, password: 'not-the-password' },
      };
    case 'api-keys':
      return { method: 'GET', path: '/v1/api-keys' };
    default: {
      // A group added later still gets measured: its first route, path parameters filled in,
      // with the demo test key where the route takes one (so that authentication runs).
      const route = routesOfGroup(group)[0];
      if (!route) throw new Error(`Group ${String(group)} has no route`);
      return {
        method: route.method,
        path: route.path.replace(/\{[^}]+\}/g, 'bench'),
        ...(route.auth === 'apikey' && { headers: apikey }),
      };
    }
  }
}

/** Only what a Lambda of the stack gets, pointed at the bench runtime: not this shell's environment. */
function lambdaEnvironment(s: LocalSettings): NodeJS.ProcessEnv {
  const jwtSecret = runtimeJwtSecret(s) ?? randomBytes(32).toString('base64url');
  return {
    PATH: process.env.PATH,
    ...localEnvironment(s, jwtSecret),
    // Deployed, the checkout group reads the secret's ARN; locally the value itself.
    PIX_SIGNING_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
}

function parseChildOutput(stdout: string): { result: ColdRunResult; log?: RequestLog } {
  let result: ColdRunResult | undefined;
  let log: RequestLog | undefined;
  for (const line of stdout.split('\n')) {
    if (line.startsWith(COLD_RESULT_MARKER))
      result = JSON.parse(line.slice(COLD_RESULT_MARKER.length)) as ColdRunResult;
    else if (line.includes('"message":"request"')) log = JSON.parse(line) as RequestLog;
  }
  if (!result) throw new Error(`cold-start child printed no result:\n${stdout}`);
  return log ? { result, log } : { result };
}

async function runOnce(target: ColdTarget, eventFile: string, env: NodeJS.ProcessEnv) {
  const sourceMaps = target.sourceMaps === false ? [] : ['--enable-source-maps'];
  const args = [...sourceMaps, CHILD_SCRIPT, target.bundle.file, eventFile];
  try {
    const { stdout } = await run(process.execPath, args, {
      env,
      timeout: CHILD_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    return parseChildOutput(stdout);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`cold start of ${labelOf(target)} failed: ${String(error)}\n${stderr ?? ''}`);
  }
}

const labelOf = (target: ColdTarget): string => target.label ?? target.bundle.name;

function writeEvent(target: ColdTarget): string {
  const file = join(dirname(target.bundle.file), 'event.json');
  writeFileSync(file, JSON.stringify(target.request ? apiGatewayEvent(target.request) : {}));
  return file;
}

export async function measureColdStarts(targets: readonly ColdTarget[], s: LocalSettings, runs: number) {
  const env = lambdaEnvironment(s);
  const eventFiles = targets.map(writeEvent);
  const samples = targets.map(() => [] as { result: ColdRunResult; log?: RequestLog }[]);
  for (let i = 0; i < runs; i++) {
    for (const [t, target] of targets.entries())
      samples[t]?.push(await runOnce(target, eventFiles[t] ?? '', env));
  }
  return targets.map((target, t) => summarizeTarget(target, samples[t] ?? []));
}

function summarizeTarget(
  target: ColdTarget,
  samples: { result: ColdRunResult; log?: RequestLog }[],
): ColdStartResult {
  const statuses = [...new Set(samples.map((s) => s.result.status))];
  const status = samples[0]?.result.status;
  // Not fatal, so that a group added later without its env here still gets its import measured;
  // but a 5xx first invoke ran an error path, and its time says little. Background functions
  // answer no HTTP status (one that throws fails the bench).
  const http = target.bundle.kind !== 'background';
  const warning =
    statuses.length > 1 || (http && (status === undefined || status >= 500))
      ? `cold start of ${labelOf(target)} answered ${statuses.join(', ')}: its first invoke time is not that of the route`
      : undefined;
  const pick = (f: (r: ColdRunResult) => number) => round(median(samples.map((s) => f(s.result))));
  return {
    name: labelOf(target),
    route: target.request
      ? `${target.request.method} ${target.request.path}`
      : target.bundle.kind === 'background'
        ? '(empty event)'
        : '-',
    runs: samples.length,
    status,
    // The handler's own count for API groups; the HTTP requests the process sent otherwise.
    dynamodbCalls: samples[0]?.log?.dynamodbCalls ?? samples[0]?.result.dynamodbRequests,
    medianBootMs: pick((r) => r.bootMs),
    medianImportMs: pick((r) => r.importMs),
    medianInvokeMs: pick((r) => r.invokeMs),
    medianInitPlusInvokeMs: pick((r) => r.importMs + r.invokeMs),
    ...(warning && { warning }),
  };
}
