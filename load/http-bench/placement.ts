// Where the bench's processes run: every server on one CPU and every load generator on another (util-linux
// `taskset -c`), alike for each case, so no case's server shares its core with its own client, and the
// command lines that start them (pinned and scheduled as asked). Linux only; elsewhere nothing is pinned.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The CPUs the bench pins to, or none (`off`, fewer than two CPUs allowed, or no taskset). */
export interface Placement {
  server_cpu?: number;
  client_cpu?: number;
}

/** How one process is started: pinned to `cpu` (taskset) and, for a batch client, as SCHED_BATCH (chrt). */
export interface Launch {
  cpu?: number;
  /** `batch`: started under `chrt -b 0` (client.ts says why). */
  sched?: 'batch' | 'normal';
}

/**
 * The argv that starts `argv` as `how` asks: `taskset -c <cpu>` outermost, then `chrt -b 0`. Both exec the
 * next program, so the pid the bench samples in /proc is the program's own.
 */
export function launchArgv(argv: string[], how: Launch): string[] {
  const sched = how.sched === 'batch' ? ['chrt', '-b', '0'] : [];
  const pin = how.cpu !== undefined ? ['taskset', '-c', String(how.cpu)] : [];
  return [...pin, ...sched, ...argv];
}

/** A `Cpus_allowed_list` ("0-1,4,6-7") as the list of CPU numbers. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',')) {
    if (part === '') continue;
    const [a, b] = part.split('-').map(Number);
    for (let cpu = a; cpu <= (b ?? a); cpu++) out.push(cpu);
  }
  return out;
}

/** The CPUs a process may run on, from /proc (`self` or a pid); undefined where /proc is missing. */
export function cpusAllowed(pid: number | 'self' = 'self'): number[] | undefined {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? parseCpuList(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

let taskset: boolean | undefined;
/** Whether `taskset -c` can start a process here (util-linux on Linux). */
export function pinAvailable(): boolean {
  taskset ??= spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  return taskset;
}

/**
 * The bench's placement: server on the first CPU this process may use, clients on the second. With fewer than
 * two, or no taskset, nothing is pinned (the report then says `not pinned`).
 */
export function placementFor(
  pin: boolean,
  here: { allowed: number[] | undefined; available: () => boolean } = { allowed: cpusAllowed(), available: pinAvailable },
): Placement {
  const { allowed, available } = here;
  if (!pin || !allowed || allowed.length < 2 || !available()) return {};
  return { server_cpu: allowed[0], client_cpu: allowed[1] };
}

/** The report's words for a placement. */
export const describePlacement = (p: Placement): string =>
  p.server_cpu === undefined ? 'not pinned' : `pinned (taskset): every server on cpu ${p.server_cpu}, every client on cpu ${p.client_cpu}`;
