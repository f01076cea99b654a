// The child-process side of the bench's server protocol: print one JSON line `{"port": N}` on stdout once
// listening, and exit cleanly on SIGTERM (a clean exit is what lets `--cpu-prof` write its profile).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function announce(server: Server): void {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
}

export function closeOnSignal(close: () => Promise<void>): void {
  process.once('SIGTERM', () => {
    const force = setTimeout(() => process.exit(0), 2_000);
    force.unref();
    void close().finally(() => process.exit(0));
  });
}
