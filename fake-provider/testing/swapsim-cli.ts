// Test helpers for the CLI suites (cli/*.test.ts): run the real `swapsim` command to its exit, or start
// `swapsim serve` and wait for the URLs it prints. Test support only: no production module imports it.
import { spawn, type ChildProcess } from 'node:child_process';
import { wallTimeout } from '../../sim/clock.ts';

export const BIN = new URL('../../bin/swapsim.js', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `swapsim ARGS…` in a child process; resolves with its exit status and output. */
export function runSwapsim(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

export interface Served {
  child: ChildProcess;
  base_url: string;
  control_url: string;
  /** Everything printed on stdout so far. */
  out(): string;
  /** Resolves with the exit status once the process exits. */
  exited: Promise<number | null>;
}

/** Starts `swapsim serve ARGS…` and resolves once it has printed its URLs and key (20 s at most). */
export function startServe(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    // The wall-clock timer of sim/ (fake-provider/no-ambient.test.ts allows no other in fake-provider/).
    const cancel = wallTimeout(20_000, () => reject(new Error(`serve printed no URLs: ${out}`)));
    child.stdout.on('data', (d) => {
      out += d;
      const base = /base URL:\s+(\S+)/.exec(out);
      const control = /control URL:\s+(\S+)/.exec(out);
      if (base && control && out.includes('API key')) {
        cancel();
        resolve({ child, base_url: base[1], control_url: control[1], out: () => out, exited });
      }
    });
  });
}
