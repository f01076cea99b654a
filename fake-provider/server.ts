// Serving the fake over HTTP: listen, report the addresses, and close gracefully (in-flight requests
// finish, the realtime driver stops, the journal is closed).
import type { AddressInfo } from 'node:net';
import { createApp, createRuntime } from './app.ts';
import type { Runtime, RuntimeOptions, ServedWorld } from './runtime.ts';
import { dropHeldRequests } from './http/faults.ts';
import { keccakReady } from './resources/assets/addresses.ts';
import { closeDeliveries } from './resources/webhooks/model.ts';
import { wallTimeout } from '../sim/clock.ts';
import { refuseConnect } from './http/limits.ts';
import { dropOrgWorlds } from './worlds.ts';

/** How long close() lets requests already running finish before their connections are destroyed. */
const CLOSE_GRACE_MS = 2_000;

/** Connection limits (docs/shared-server.md): a slow or idle client holds a socket this long at most. */
export interface ConnectionLimits {
  /** Until the request's headers are in (node's headersTimeout); past it 408 in the envelope. */
  headers_timeout_ms: number;
  /** Until the whole request (headers and body) is in (node's requestTimeout); answers may take longer. */
  request_timeout_ms: number;
  /** An idle keep-alive connection is closed after this. */
  keep_alive_timeout_ms: number;
  /** Connections open at once; past it a new one is closed at once (node's maxConnections). */
  max_connections: number;
}

const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headers_timeout_ms: 10_000,
  request_timeout_ms: 30_000,
  // Webhook receivers may call back into the API while a delivery is in flight: keep-alive stays short.
  keep_alive_timeout_ms: 5_000,
  max_connections: 4_096,
};

/** A world served over HTTP (declared in runtime.ts, which the control plane reaches without importing this file). */
export type RunningServer = ServedWorld;

/**
 * Tells the runtime's worlds where the server listens (webhooks never connect there). A journal records it as
 * a fact, and a replay decides registrations against the recorded endpoint, not its own ephemeral port.
 */
function listened(runtime: Runtime, host: string, port: number): void {
  const endpoint = runtime.options.endpoint!;
  const journal = runtime.world.sim.journal;
  const recorded =
    journal.mode === 'replay' ? (journal.fact('endpoint', 'server') as { host: string; port: number } | undefined) : undefined;
  endpoint.host = recorded?.host ?? host;
  endpoint.port = recorded?.port ?? port;
  if (journal.mode === 'record') journal.write({ kind: 'fact', what: 'endpoint', key: 'server', value: { host, port } });
}

export async function serve(
  options: RuntimeOptions & { port?: number; host?: string; limits?: Partial<ConnectionLimits> },
): Promise<RunningServer> {
  // The fast keccak compiles asynchronously; a world that never yields to the event loop would not get it.
  await keccakReady;
  const runtime = createRuntime(options);
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const app = createApp(runtime, {
    headersTimeout: limits.headers_timeout_ms,
    requestTimeout: limits.request_timeout_ms,
    keepAliveTimeout: limits.keep_alive_timeout_ms,
    // Node checks the two timeouts on this period (30 s by default, which let slow headers stay 30 s late).
    connectionsCheckingInterval: Math.min(1_000, limits.headers_timeout_ms),
  });
  const server = app.server;
  server.maxConnections = limits.max_connections;
  refuseConnect(server, () => runtime.world.profile);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const port = (server.address() as AddressInfo).port;
  listened(runtime, host, port);
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
        // Organizations with clocks of their own: their drivers, held requests and deliveries go the same way.
        dropOrgWorlds(runtime);
        // Requests held by a `delay_ms` fault would keep close() waiting forever: answer them 503 first. The
        // shutdown is an input (their 503s follow from it): a replay drops them at the same line.
        const journal = runtime.world.sim.journal;
        if (journal.mode === 'record') journal.write({ kind: 'shutdown' });
        dropHeldRequests(runtime.world);
        // A settle waiting on a hanging receiver, or an answer not yet come: aborted, and nothing new is sent.
        closeDeliveries(runtime.world);
        // Whatever still runs after the grace (a slow body, a long settle) loses its connection.
        const cancel = wallTimeout(CLOSE_GRACE_MS, () => server.closeAllConnections());
        // node's close, not fastify's: requests still arriving on open connections are answered, not 503'd.
        server.close(() => {
          cancel();
          runtime.world.sim.journal.close();
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
