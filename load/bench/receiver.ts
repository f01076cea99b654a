// A webhook receiver for the benchmarks: a node:http server on 127.0.0.1 that drains each request and
// answers 200, counting what it received. `inline` runs it in the benchmark's own process (its CPU counts
// against the sim); `process` runs it as a child process, as an integrator's app would be, and may answer
// 500 or hang instead (the soak's failing and hanging receivers).
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface Receiver {
  url: string;
  received(): Promise<number>;
  close(): Promise<void>;
}

export type ReceiverMode = 'inline' | 'process';

/** How a receiver process answers: 200, 500, 200 after 2 s (slow), or never (hang). */
export type ReceiverAnswer = 200 | 500 | 'slow' | 'hang';

export async function startReceiver(mode: ReceiverMode = 'inline', answer: ReceiverAnswer = 200): Promise<Receiver> {
  if (mode === 'inline' && answer !== 200) throw new Error('an inline receiver answers 200; use a process for 500 or hang');
  return mode === 'process' ? startChild(answer) : startInline();
}

async function startInline(): Promise<Receiver> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received: async () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function startChild(answer: ReceiverAnswer): Promise<Receiver> {
  const child = fork(fileURLToPath(new URL('./receiver-process.mjs', import.meta.url)), [String(answer)], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`receiver process exited (${code})`));
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m[key] as T);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const port = await next<number>('port');
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received: () => {
      const answer = next<number>('count');
      child.send('count');
      return answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
