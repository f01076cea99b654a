// Starting and stopping the bench's servers as child processes (node + tsx), each announcing its port on
// stdout, pinned to a CPU when asked (placement.ts); optionally under `--cpu-prof`, whose profile lands in
// `cpu_prof_dir` when the child exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpusAllowed, launchArgv } from './placement.ts';

const SERVERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), 'servers');
const START_TIMEOUT_MS = 30_000;

export type ServerKind = 'raw' | 'fastify' | 'express' | 'swapsim';

export interface ServerChild {
  kind: ServerKind;
  pid: number;
  port: number;
  url: string;
  /** CPU time (user + system) the child has used so far, from /proc; undefined where /proc is missing. */
  cpu_ms(): number | undefined;
  /** Times the kernel has taken a CPU from the child's threads while they could run (preemptions), from /proc. */
  preemptions(): number | undefined;
  /** The CPUs the kernel lets the child run on (its affinity), from /proc. */
  cpus(): number[] | undefined;
  stop(): Promise<void>;
}

const CLOCK_TICKS_PER_S = 100;

/** utime + stime of a process from /proc/<pid>/stat (fields 14 and 15, after the parenthesised name). */
export function procCpu_ms(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/** The sum over a process's threads of `nonvoluntary_ctxt_switches` (/proc/<pid>/task/<tid>/status). */
export function procPreemptions(pid: number): number | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let n = 0;
  for (const tid of tids) {
    try {
      const m = /^nonvoluntary_ctxt_switches:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      n += m ? Number(m[1]) : 0;
    } catch {
      // A thread that ended since the listing: its switches are gone with it.
    }
  }
  return n;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Profile the child with `node --cpu-prof`, writing `.cpuprofile` files here. */
  cpu_prof_dir?: string;
  /** Pin the child to this CPU (taskset). */
  cpu?: number;
  /** Where the server scripts are (default: this checkout's servers/): the bench's read-base case runs another's. */
  servers_dir?: string;
}

function waitForPort(child: ChildProcess, kind: ServerKind): Promise<number> {
  return new Promise((resolvePort, reject) => {
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(
      () => reject(new Error(`${kind} server did not start within ${START_TIMEOUT_MS} ms: ${stderr}`)),
      START_TIMEOUT_MS,
    );
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const port = (JSON.parse(line) as { port?: number }).port;
      if (typeof port === 'number') {
        clearTimeout(timer);
        resolvePort(port);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${kind} server exited with ${code} before listening: ${stderr}`));
    });
  });
}

export async function startServer(kind: ServerKind, opts: StartOptions = {}): Promise<ServerChild> {
  const prof = opts.cpu_prof_dir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpu_prof_dir}`] : [];
  const [command, ...args] = launchArgv(
    [process.execPath, ...prof, '--import', 'tsx', resolve(opts.servers_dir ?? SERVERS_DIR, `${kind}.ts`)],
    {
      cpu: opts.cpu,
    },
  );
  const child = spawn(command, args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Server-side errors (swapsim logs its own bugs) stay visible in the bench's output.
  child.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${kind}] ${d.toString()}`));
  const port = await waitForPort(child, kind);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    kind,
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    cpu_ms: () => procCpu_ms(child.pid!),
    preemptions: () => procPreemptions(child.pid!),
    cpus: () => cpusAllowed(child.pid!),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
