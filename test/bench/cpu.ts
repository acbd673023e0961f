/**
 * CPU time per process during the load test, from /proc (Linux only; skipped elsewhere). On a
 * small machine the load generator, the runtime and the DynamoDB Local JVM share the cores, so
 * this says which of them a request's time is really spent in.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { round } from './stats.ts';

/** CPU seconds by process label. */
export type CpuSample = Record<string, number>;

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

/** `/proc/<pid>/stat` → process group, command name and user+system CPU seconds. */
function readStat(pid: string, ticks: number): { pgrp: number; comm: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: fields are counted after it.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state, ppid, pgrp, … utime is field 14 of the line, stime 15.
    return { pgrp: Number(fields[2]), comm, seconds: (Number(fields[11]) + Number(fields[12])) / ticks };
  } catch {
    return undefined; // The process ended between readdir and read.
  }
}

/** The runtime's process group (node bin/local.ts and the JVM it started) and this process. */
export function sampleCpu(runtimePid: number): CpuSample | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const ticks = clockTicks();
  const sample: CpuSample = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const stat = readStat(pid, ticks);
    if (stat?.pgrp !== runtimePid) continue;
    const label = Number(pid) === runtimePid ? 'runtime (node bin/local.ts)' : `runtime child (${stat.comm})`;
    sample[label] = (sample[label] ?? 0) + stat.seconds;
  }
  const own = process.cpuUsage();
  sample['bench + autocannon (this process)'] = (own.user + own.system) / 1e6;
  return sample;
}

export function cpuShares(
  before: CpuSample,
  after: CpuSample,
  wallSeconds: number,
  requests: number,
): CpuShare[] {
  return Object.entries(after).map(([name, seconds]) => {
    const used = seconds - (before[name] ?? 0);
    return {
      process: name,
      cpuSeconds: round(used, 2),
      cores: round(used / wallSeconds, 2),
      cpuMsPerRequest: round((used * 1000) / Math.max(1, requests), 2),
    };
  });
}
