// The bench's load generators run in processes of their own (closed-loop-child.ts, open-loop-child.ts), each
// started the same way for every case: as a SCHED_BATCH task by default, so that the client a server's answer
// wakes never preempts that server on its own core (docs/performance.md); one JSON line per message on stdout.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { cpusAllowed, launchArgv } from './placement.ts';

/**
 * How the load generator is scheduled. `batch` (Linux, util-linux `chrt`): the kernel never preempts a running
 * task to run it when it wakes, as it does a normal task. On loopback every answer's write wakes the client
 * on the writer's core, and a normal client then preempts a busy server once per couple of answers. `normal`:
 * the generator as any process.
 */
export type ClientSched = 'batch' | 'normal';

let chrt: boolean | undefined;
/** Whether `chrt -b` can start a process here (util-linux on Linux). */
export function batchAvailable(): boolean {
  chrt ??= spawnSync('chrt', ['-b', '0', 'true']).status === 0;
  return chrt;
}

/** The scheduling a generator actually gets: `batch` falls back to `normal` where chrt cannot start it. */
export const effectiveSched = (wanted: ClientSched): ClientSched => (wanted === 'batch' && batchAvailable() ? 'batch' : 'normal');

/** How a generator is started: its scheduling, and the CPU it is pinned to (placement.ts), if any. */
export interface ClientLaunch {
  sched: ClientSched;
  cpu?: number;
}

/** What a generator says when its measured part starts: the CPUs it may run on, as its kernel reports them. */
export interface MeasuringLine {
  measuring: true;
  cpus?: number[];
}

/**
 * Runs `script` (a TypeScript file, through tsx) with `env`, started as `how` says, and resolves with the value
 * of its `{"result": …}` line; `onMeasuring` is called on its `{"measuring": true}` line (the bench samples the
 * server's CPU time then). Any other exit is a rejection carrying its stderr.
 */
export function runClient<T>(
  script: string,
  env: Record<string, string>,
  how: ClientLaunch,
  onMeasuring?: (line: MeasuringLine) => void,
): Promise<T> {
  const node = [process.execPath, '--import', 'tsx', script];
  const [command, ...args] = launchArgv(node, { sched: effectiveSched(how.sched), cpu: how.cpu });
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let result: { value: T } | undefined;
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as Partial<MeasuringLine> & { result?: T };
      if (msg.measuring) onMeasuring?.({ measuring: true, ...(msg.cpus ? { cpus: msg.cpus } : {}) });
      if (msg.result !== undefined) result = { value: msg.result };
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result && code === 0 ? resolve(result.value) : reject(new Error(`load generator ${script} exited ${code}: ${stderr}`)),
    );
  });
}

/**
 * The scheduling policy this process runs under, as the kernel reports it (/proc/self/stat field 41: 0 normal,
 * 3 batch); null where /proc is missing. A generator reports it, so the bench states what was, not what was asked.
 */
export function ownSched(): ClientSched | 'other' | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const policy = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
    return policy === 3 ? 'batch' : policy === 0 ? 'normal' : 'other';
  } catch {
    return null;
  }
}

/** The child's side: the line that starts the measured part (with the CPUs it may use), and the result line. */
export const say = (msg: { measuring: true } | { result: unknown }): void => {
  const line = 'measuring' in msg ? { ...msg, cpus: cpusAllowed() } : msg;
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
