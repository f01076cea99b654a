// Serves the dashboard's files (GET /_sim/ui, /_sim/ui/app.js, chart.js, app.css, triggers.json) from dist/ui, where
// lib/build.mjs puts them: nothing from a CDN, the page works offline. They hold no data, so they are served
// without the control token (a browser cannot send one on navigation; the page asks for it and sends it on every
// data call); without a token the control plane's loopback rule still applies to them.
import { readFileSync } from 'node:fs';
import type { FastifyReply } from 'fastify';
import type { Runtime } from '../runtime.ts';
import { sendJson } from '../http/pipeline.ts';
import type { Probe } from '../http/planes.ts';
import { isLoopback } from '../control/gate.ts';
import { ApiError, envelope } from '../contract/errors.ts';

/** Where the built page lives: dist/ui beside the bundles (from source, the checkout's dist/ui). */
export const UI_DIST = new URL('../../dist/ui/', import.meta.url);

const FILES: Record<string, { file: string; type: string }> = {
  '/ui': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  // The timeline chart (vega and the reports' swimlane spec): a bundle of its own, loaded on the first timeline.
  '/ui/chart.js': { file: 'chart.js', type: 'text/javascript; charset=utf-8' },
  '/ui/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/ui/triggers.json': { file: 'triggers.json', type: 'application/json; charset=utf-8' },
};

/** A refusal in the envelope, outside the journal (these routes have no request id of the world's). */
export function refuse(reply: FastifyReply, runtime: Runtime, err: ApiError): void {
  const { status, body } = envelope(err, 'req_ui', runtime.world.profile);
  sendJson(reply, status, body, undefined);
}

/** The dashboard's file routes, answered before the journal (a page load is not an input to the world). */
export function uiAssetRoutes(runtime: Runtime, dir: URL = UI_DIST): Probe[] {
  const cache = new Map<string, Buffer>();
  return Object.entries(FILES).map(([path, { file, type }]) => ({
    path: `/_sim${path}`,
    serve: (request, reply) => {
      if (!runtime.options.control_token && !runtime.options.control_open && !isLoopback(request.raw.socket.remoteAddress)) {
        return refuse(
          reply,
          runtime,
          new ApiError('forbidden', 'the control plane answers loopback clients only (start with --control-token to open it)'),
        );
      }
      let bytes = cache.get(file);
      if (bytes === undefined) {
        try {
          bytes = readFileSync(new URL(file, dir));
        } catch {
          return refuse(
            reply,
            runtime,
            new ApiError('not_implemented', `the dashboard's ${file} is not built: run npm run build (lib/build.mjs writes dist/ui)`),
          );
        }
        cache.set(file, bytes);
      }
      // The page learns whether to ask for the token before its first call (a refused call would be a console error).
      if (file === 'index.html')
        bytes = Buffer.from(
          bytes.toString('utf8').replace('content="swapsim-auth"', `content="${runtime.options.control_token ? 'token' : 'open'}"`),
        );
      // The page loads nothing but its own files and calls nothing but this server.
      const csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'";
      void reply.code(200).headers({ 'content-type': type, 'cache-control': 'no-cache', 'content-security-policy': csp }).send(bytes);
    },
  }));
}
