/**
 * The service under test: `node bin/local.ts --in-memory` as a CHILD process on its own ports,
 * so the benchmark never measures (or disturbs) a developer's `npm start`, and whatever happens
 * in the bench, the runtime and its DynamoDB Local JVM are stopped.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DemoAccount } from '../../infra/local/seed.ts';
import { type LocalSettings, localSettings } from '../../infra/local/settings.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** Away from the defaults (3000, 8100, 9324, 4569) so `npm start` can keep running beside it. */
/** `BENCH_PORT_OFFSET` lets two runs share a machine (as `TEST_PORT_OFFSET` does for the tests). */
const PORT_OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? 0);
const BENCH_PORTS = {
  apiPort: 3410 + PORT_OFFSET,
  dynamoDbPort: 8410 + PORT_OFFSET,
  sqsPort: 9430 + PORT_OFFSET,
  s3Port: 4610 + PORT_OFFSET,
} as const;

const READY_MARKER = 'Pix service ready on';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
/** Lines kept for the error message when the runtime fails: enough to show a stack trace. */
const DIAGNOSTIC_LINES = 40;

/** One `"message":"request"` log line of the runtime, reduced to what the bench reads. */
export interface RequestLog {
  /** The `x-request-id` the request sent, or the one the service made up. */
  requestId: string;
  routeKey: string;
  status: number;
  durationMs: number;
  dynamodbCalls: number;
  dynamodbRoundTrips: number;
  dynamodbReadUnits: number;
  dynamodbWriteUnits: number;
}

/** Units of one DynamoDB usage scope, or of a named part of it. */
export interface Units {
  dynamodbReadUnits: number;
  dynamodbWriteUnits: number;
}

/** One `"message":"invocation"` line: a background function's invocation (logged at debug). */
export interface InvocationLog extends Units {
  function: string;
  durationMs: number;
  dynamodbCalls: number;
  parts?: Record<string, { readUnits: number; writeUnits: number }>;
}

export interface BenchRuntime {
  settings: LocalSettings;
  /** The child's pid, also its process group id (the JVM is in that group). */
  pid: number;
  demo: DemoAccount;
  /** Every request log line seen so far, in order. */
  requestLogs: RequestLog[];
  /** Every background invocation line so far (only with `logLevel: 'debug'`). */
  invocationLogs: InvocationLog[];
  /** Resolves once the child's stdout has been quiet for a moment (its log lines lag the responses). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** The local settings with the bench's ports and data folder: table name etc. stay the runtime's own. */
export function benchSettings(dataDir: string): LocalSettings {
  const base = localSettings({ inMemory: true });
  return {
    ...base,
    ...BENCH_PORTS,
    dataDir,
    inMemory: true,
    baseUrl: `http://${base.host}:${BENCH_PORTS.apiPort}`,
  };
}

function runtimeEnvironment(s: LocalSettings, logLevel: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(s.apiPort),
    DYNAMODB_PORT: String(s.dynamoDbPort),
    SQS_PORT: String(s.sqsPort),
    S3_PORT: String(s.s3Port),
    DATA_DIR: s.dataDir,
    LOG_LEVEL: logLevel,
    // The load test sends thousands of requests a minute with one key: it must not be throttled.
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
}

function parseRequestLog(line: string): RequestLog | undefined {
  if (!line.startsWith('{') || !line.includes('"message":"request"')) return undefined;
  try {
    const entry = JSON.parse(line) as Partial<RequestLog> & { message?: string };
    if (entry.message !== 'request' || typeof entry.routeKey !== 'string') return undefined;
    return {
      requestId: String(entry.requestId),
      routeKey: entry.routeKey,
      status: Number(entry.status),
      durationMs: Number(entry.durationMs),
      dynamodbCalls: Number(entry.dynamodbCalls),
      dynamodbRoundTrips: Number(entry.dynamodbRoundTrips),
      dynamodbReadUnits: Number(entry.dynamodbReadUnits),
      dynamodbWriteUnits: Number(entry.dynamodbWriteUnits),
    };
  } catch {
    return undefined;
  }
}

function parseInvocationLog(line: string): InvocationLog | undefined {
  if (!line.startsWith('{') || !line.includes('"message":"invocation"')) return undefined;
  try {
    return JSON.parse(line) as InvocationLog;
  } catch {
    return undefined;
  }
}

/** Sends `signal` to the child's whole process group (node + the DynamoDB Local JVM it started). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM lets bin/local.ts stop DynamoDB Local itself; SIGKILL to the group after the grace period. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return; // Never started.
  if (!exited(child)) {
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_GRACE_MS);
    // Bounded even if the exit event never comes: the SIGKILL above is the last word.
    await Promise.race([gone, sleep(STOP_GRACE_MS + 2_000)]);
    clearTimeout(timer);
  }
  // Nothing of the group may outlive the bench, even if the runtime died without stopping the JVM.
  signalGroup(child, 'SIGKILL');
}

function waitForReady(
  child: ChildProcess,
  readyLine: Promise<void>,
  diagnostics: () => string,
): Promise<void> {
  return new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`the runtime was not ready after ${READY_TIMEOUT_MS / 1000} s.\n${diagnostics()}`)),
      READY_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`the runtime exited (${code ?? signal}) before it was ready.\n${diagnostics()}`));
    const onError = (error: Error) => reject(new Error(`could not start the runtime: ${error.message}`));
    // 'close', not 'exit': by then its last output lines have been read for the message.
    child.once('close', onExit);
    child.once('error', onError);
    readyLine.then(() => {
      clearTimeout(timer);
      child.off('close', onExit);
      child.off('error', onError);
      resolveReady();
    });
  });
}

/** Boots the runtime and resolves once it printed its ready line and wrote demo.json. */
export async function startBenchRuntime(
  s: LocalSettings,
  options: { logLevel?: 'info' | 'debug' } = {},
): Promise<BenchRuntime> {
  // detached: its own process group, so stop() can reach the JVM too (and Ctrl-C is ours to relay).
  // BENCH_CPU_PROFILE=<folder>: the runtime writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROFILE;
  const profileArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...profileArgs, 'bin/local.ts', '--in-memory'], {
    cwd: repoRoot,
    env: runtimeEnvironment(s, options.logLevel ?? 'info'),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // A bench process killed in any way still takes the runtime down with it.
  const killOnExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  const requestLogs: RequestLog[] = [];
  const invocationLogs: InvocationLog[] = [];
  const recent: string[] = [];
  let lastOutputAt = Date.now();
  const remember = (line: string) => {
    lastOutputAt = Date.now();
    recent.push(line);
    if (recent.length > DIAGNOSTIC_LINES) recent.shift();
  };
  let markReady = () => {};
  const readyLine = new Promise<void>((done) => {
    markReady = done;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const log = parseRequestLog(line);
    if (log) {
      lastOutputAt = Date.now();
      requestLogs.push(log);
      return;
    }
    const invocation = parseInvocationLog(line);
    if (invocation) {
      invocationLogs.push(invocation);
      return;
    }
    remember(line);
    if (line.includes(READY_MARKER)) markReady();
  });
  createInterface({ input: child.stderr }).on('line', remember);
  const diagnostics = () => `Last output of node bin/local.ts:\n  ${recent.join('\n  ')}`;

  const stop = async () => {
    await stopChild(child);
    process.off('exit', killOnExit);
  };
  try {
    await waitForReady(child, readyLine, diagnostics);
    const demo = JSON.parse(readFileSync(join(s.dataDir, 'demo.json'), 'utf8')) as DemoAccount;
    return {
      settings: s,
      pid: child.pid ?? -1,
      demo,
      requestLogs,
      invocationLogs,
      settle: () => settle(() => lastOutputAt),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Quiet for 250 ms, at most 3 s: the log lines of the last responses have been read. */
async function settle(lastOutputAt: () => number): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (Date.now() - lastOutputAt() < 250 && Date.now() < deadline) await sleep(50);
}

/**
 * The runtime's JWT signing secret, when it persists one (`<DATA_DIR>/jwt-secret`). In-memory
 * runs keep a random secret in the process, so the cold-start invokes use routes that need none.
 */
export function runtimeJwtSecret(s: LocalSettings): string | undefined {
  const file = join(s.dataDir, 'jwt-secret');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * Points this process's AWS SDK at the bench runtime's DynamoDB Local. Call it before importing
 * the store modules: the SDK client reads the endpoint and region from the environment.
 */
export function useBenchDynamoDb(s: LocalSettings): void {
  Object.assign(process.env, {
    TABLE_NAME: s.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: `http://${s.host}:${s.dynamoDbPort}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
}
