// Serving the fake over HTTP: listen, report the addresses, and close gracefully (in-flight requests
// finish, the realtime driver stops, the journal is closed).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, createRuntime, type Runtime, type RuntimeOptions } from './app.ts';
import { dropHeldRequests } from './http/faults.ts';
import { keccakReady } from './resources/assets/addresses.ts';

export interface RunningServer {
  runtime: Runtime;
  server: Server;
  port: number;
  host: string;
  base_url: string;
  control_url: string;
  close(): Promise<void>;
}

export async function serve(options: RuntimeOptions & { port?: number; host?: string }): Promise<RunningServer> {
  // The fast keccak compiles asynchronously; a world that never yields to the event loop would not get it.
  await keccakReady;
  const runtime = createRuntime(options);
  const app = createApp(runtime);
  const server = createServer(app);
  // Webhook receivers may call back into the API while a delivery is in flight: keep-alive stays short.
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  return {
    runtime,
    server,
    port,
    host,
    base_url: `http://${hostForUrl}:${port}/v1`,
    control_url: `http://${hostForUrl}:${port}/_sim`,
    close: () =>
      new Promise<void>((resolve) => {
        runtime.stopRealtime();
        // Requests held by a `delay_ms` fault would keep close() waiting forever: answer them 503 first.
        dropHeldRequests(runtime.world);
        server.close(() => {
          runtime.world.sim.journal.close();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
