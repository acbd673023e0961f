/**
 * CPU time per process during the load test, from /proc (Linux only; skipped elsewhere). On a
 * small machine the load generator, the runtime and the DynamoDB Local JVM share the cores, so
 * this says which of them a request's time is really spent in.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { round } from './stats.ts';

/** CPU seconds so far, by process label, and of the whole machine (all cores, all processes). */
export interface CpuSample {
  processes: Record<string, number>;
  machine: number;
}

export const OTHERS = 'other processes on the machine';
const BENCH = 'bench (this process: autocannon, SDK client, cold-start children)';

export interface CpuShare {
  process: string;
  cpuSeconds: number;
  /** Cores kept busy on average: 1 = one core fully used. */
  cores: number;
  cpuMsPerRequest: number;
}

const clockTicks = (): number => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2_000 }).trim()) || 100;
  } catch {
    return 100;
  }
};

/**
 * `/proc/<pid>/stat` → process group, command name, user+system CPU seconds, and those of its
 * children that have ended and been waited for.
 */
function readStat(
  pid: string,
  ticks: number,
): { pgrp: number; comm: string; seconds: number; endedChildrenSeconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: fields are counted after it.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state, ppid, pgrp, … utime is field 14 of the line, stime 15, cutime 16, cstime 17.
    return {
      pgrp: Number(fields[2]),
      comm,
      seconds: (Number(fields[11]) + Number(fields[12])) / ticks,
      endedChildrenSeconds: (Number(fields[13]) + Number(fields[14])) / ticks,
    };
  } catch {
    return undefined; // The process ended between readdir and read.
  }
}

/** Busy time of all cores from the first line of /proc/stat (user nice system idle iowait irq softirq steal). */
function machineBusySeconds(ticks: number): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / ticks;
}

/** The runtime's process group (node bin/local.ts and the JVM it started), this process and the machine. */
export function sampleCpu(runtimePid: number): CpuSample | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const ticks = clockTicks();
  const processes: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = readStat(pid, ticks);
    if (stat?.pgrp !== runtimePid) continue;
    const label = Number(pid) === runtimePid ? 'runtime (node bin/local.ts)' : `runtime child (${stat.comm})`;
    processes[label] = (processes[label] ?? 0) + stat.seconds;
  }
  const own = process.cpuUsage();
  // With the cold-start processes it ran (they have ended by the next sample): not "others".
  const children = readStat('self', ticks)?.endedChildrenSeconds ?? 0;
  processes[BENCH] = (own.user + own.system) / 1e6 + children;
  return { processes, machine: machineBusySeconds(ticks) };
}

/**
 * What each process used between two samples. "Other processes" is the machine's busy time
 * minus ours: when it is not near zero, something else competed for the cores during the run.
 */
export function cpuShares(
  before: CpuSample,
  after: CpuSample,
  wallSeconds: number,
  requests: number,
): CpuShare[] {
  const used: Record<string, number> = {};
  for (const [name, seconds] of Object.entries(after.processes))
    used[name] = seconds - (before.processes[name] ?? 0);
  const ours = Object.values(used).reduce((sum, s) => sum + s, 0);
  used[OTHERS] = Math.max(0, after.machine - before.machine - ours);
  return Object.entries(used).map(([name, seconds]) => ({
    process: name,
    cpuSeconds: round(seconds, 2),
    cores: round(seconds / wallSeconds, 2),
    cpuMsPerRequest: round((seconds * 1000) / Math.max(1, requests), 2),
  }));
}

const runtimeSeconds = (sample: CpuSample): number =>
  Object.entries(sample.processes)
    .filter(([label]) => label.startsWith('runtime'))
    .reduce((sum, [, seconds]) => sum + seconds, 0);

/**
 * Waits until the runtime (node and the JVM) uses less than `cores` over a second, at most
 * `maxSeconds`: its stream and queue pollers have worked through what the runs before left
 * them. Returns the seconds waited and the runtime's last reading; undefined without /proc.
 */
export async function waitForQuietRuntime(
  runtimePid: number,
  { cores = 0.15, maxSeconds = 20 }: { cores?: number; maxSeconds?: number } = {},
): Promise<{ waitedSeconds: number; runtimeCores: number } | undefined> {
  const startedAt = performance.now();
  let previous = sampleCpu(runtimePid);
  if (!previous) return undefined;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const current = sampleCpu(runtimePid);
    if (!current) return undefined;
    const waitedSeconds = (performance.now() - startedAt) / 1000;
    const runtimeCores = round(runtimeSeconds(current) - runtimeSeconds(previous), 2);
    if (runtimeCores < cores || waitedSeconds >= maxSeconds)
      return { waitedSeconds: round(waitedSeconds), runtimeCores };
    previous = current;
  }
}
