// Progress for long commands (verify, soak, bench, scenario --all): a redrawn line on a TTY, quiet
// line-based updates (at most one per `every_ms`, plus the last) when not on a TTY, as in CI logs.
export interface Progress {
  tick(update: { done: number; failures?: number; note?: string }): void;
  done(summary?: string): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  stream?: NodeJS.WriteStream | { isTTY?: boolean; write(s: string): boolean };
  every_ms?: number;
  /** Wall clock for elapsed time (injectable for tests). */
  now_ms?: () => number;
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  const now_ms = opts.now_ms ?? (() => performance.now());
  const every_ms = opts.every_ms ?? 5_000;
  const started_ms = now_ms();
  let last_line_ms = -Infinity;
  let state = { done: 0, failures: 0, note: '' };
  const line = (): string => {
    const elapsed_s = ((now_ms() - started_ms) / 1000).toFixed(1);
    const note = state.note ? ` ${state.note}` : '';
    return `${opts.label}: ${state.done}/${opts.total} done, ${state.failures} failed, ${elapsed_s}s${note}`;
  };
  return {
    tick(update) {
      state = { done: update.done, failures: update.failures ?? state.failures, note: update.note ?? '' };
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${line()}`);
        return;
      }
      const t = now_ms();
      if (t - last_line_ms >= every_ms || state.done === opts.total) {
        last_line_ms = t;
        stream.write(`${line()}\n`);
      }
    },
    done(summary) {
      if (stream.isTTY) stream.write(`\r\x1b[2K${line()}\n`);
      if (summary) stream.write(`${summary}\n`);
    },
  };
}
