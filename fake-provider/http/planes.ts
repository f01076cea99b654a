// The server on fastify: /v1 and /_sim are each a plane (a plugin under its prefix) serving its declared routes
// through pipeline.ts, with its OpenAPI document, its 404 in the envelope and, for /_sim, the control gate.
// Every request begins (world, request id, journal line: replay/record.ts) once its body is in, in
// preValidation, or in the error handler when the body failed; probes (readiness, the dashboard's files) are
// routes outside the planes that never begin. Routing is the framework's (case-insensitive, one optional
// trailing slash, HEAD from GET), as are body parsing (body.ts), body limits, client errors and 404s.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ApiError } from '../contract/errors.ts';
import type { AnyRoute } from '../contract/route.ts';
import { apiErrorOf, badUrlError, pathUnder, sendError, sendJson, serveRoute, type Serving } from './pipeline.ts';
import { bodyErrorType, installBodyParsing } from './body.ts';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, refusedByHeaders } from './limits.ts';

/** A prefix served from its declared routes: /v1 (the API) or /_sim (the control plane). */
interface Plane {
  prefix: string;
  routes: readonly AnyRoute[];
  /** Its answers keep their exact shapes and its bodies are strict (the profile's extra fields are /v1's). */
  control: boolean;
  /** The plane's OpenAPI document, served at `<prefix>/openapi.json`, built on first request. */
  document: () => unknown;
  /** A refusal checked before any route (and before its 404), once the request has begun; null to go on. */
  gate?: (request: FastifyRequest) => ApiError | null;
  /** The answer to a path under the prefix that no route serves (`path`: under the prefix, `/` for the bare prefix). */
  notFound: (method: string, path: string) => ApiError;
}

/**
 * Answered before anything else (no request id, not journaled, no plane gate): readiness, the dashboard's files
 * and its trigger runs. GET (and HEAD) unless `method` says POST; a POST's body is read like any, and a body that
 * fails is answered by `refuse`, still outside the journal.
 */
export interface Probe {
  path: string;
  method?: 'POST';
  serve: (request: FastifyRequest, reply: FastifyReply) => void;
  refuse?: (err: unknown, request: FastifyRequest, reply: FastifyReply) => void;
}

/**
 * Gives the request its world and id and journals it (replay/record.ts), once the body is read; `err` is why it
 * could not be. Calls `next` once, with the error the request is to be answered with, if any.
 */
export type Begin = (request: FastifyRequest, reply: FastifyReply, next: (err?: unknown) => void, err?: unknown) => void;

export interface FrontDoor {
  planes: readonly Plane[];
  serving: Serving;
  probes: readonly Probe[];
  /** The answer to a path under no plane. */
  outside: (method: string, pathname: string) => ApiError;
  begin: Begin;
  /** An error that is no ApiError nor a body failure: a swapsim bug, reported. */
  onBug: (err: unknown, request_id: string) => void;
  /** Wall time a request body may take to arrive (default BODY_TIMEOUT_MS); past it 408 `request_timeout`. */
  body_timeout_ms?: () => number;
  /** node's server options (timeouts). */
  server: ServerOptions;
  /** node's own refusals before any request exists (431, 400, 408), answered on the socket. */
  clientError: (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => void;
}

/** The envelope for any failure of a request that has begun; a bug is reported with its request id. */
function failWith(o: FrontDoor): (err: unknown, request: FastifyRequest, reply: FastifyReply) => void {
  return (err, request, reply) => {
    if (reply.sent) return;
    const locals = request.locals;
    if (locals == null) {
      sendJson(
        reply,
        500,
        {
          request_id: 'req_unknown',
          error: { type: 'api_error', code: 'internal_error', message: 'internal error', request_id: 'req_unknown' },
        },
        undefined,
      );
      return;
    }
    const api = apiErrorOf(err, () => o.onBug(err, locals.request_id));
    sendError(reply, api, locals.world, locals.request_id);
  };
}

/**
 * Answers made in one turn of the event loop go to their sockets together, at its end (setImmediate): a
 * client waiting on several connections is woken once for them rather than once per answer. Each wake-up was
 * the server's cost too, in the write that made it: without them the balances read served a quarter to a third
 * more requests a second on the same CPU (docs/performance.md). A lone request waits only for the rest of its
 * turn. The framework's own onSend hook holds the reply, so a failure while writing it is answered as before.
 */
export function coalesceWrites(app: FastifyInstance): void {
  let waiting: Array<() => void> = [];
  const release = (): void => {
    const now = waiting;
    waiting = [];
    for (const go of now) go();
  };
  app.addHook('onSend', (_request, _reply, payload) => {
    if (waiting.length === 0) setImmediate(release);
    return new Promise((resolve) => waiting.push(() => resolve(payload)));
  });
}

/** The path of a request URL without its query. */
const pathnameOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** The app: every plane, the probes, body handling, and the 404, error and client-error answers. */
export function frontDoor(o: FrontDoor): FastifyInstance {
  const fail = failWith(o);
  /** Begins a request that has not yet; `then` gets the error it is to be answered with. */
  const beginThen = (request: FastifyRequest, reply: FastifyReply, then: (err?: unknown) => void, err?: unknown): void => {
    if (request.locals != null) return then(err);
    try {
      o.begin(request, reply, then, err);
    } catch (e) {
      // Begun as far as it got: the failure is answered like any other.
      if (request.locals != null) then(e);
      else throw e;
    }
  };
  const app = Fastify({
    // Node's server, with swapsim's connection limits and its answer to `Expect: 100-continue`: node would say
    // `100 Continue` before any listener ran; a body its headers already refuse (too large, not UTF-8) gets its
    // refusal instead, so the client never sends it.
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void): Server => {
      const server = createServer(o.server, handler);
      server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
        if (refusedByHeaders(req) === null) res.writeContinue();
        handler(req, res);
      });
      return server;
    },
    clientErrorHandler: o.clientError,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: {
      caseSensitive: false,
      ignoreTrailingSlash: true,
      // A parameter is as long as the client sends it: the route answers it (not_found), not the router.
      maxParamLength: MAX_BODY_BYTES,
      // node's querystring, as journals and clients have always been answered (repeated names → arrays).
      querystringParser: (s: string) => parseQuery(s),
    },
    // A parameter with malformed percent-encoding is the client's error, answered once the request has begun.
    frameworkErrors: (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      beginThen(request, reply, (e) => fail(e ?? badUrlError(), request, reply));
    },
  });
  app.decorateRequest('locals', null);
  app.decorateRequest('rawBody', undefined);
  installBodyParsing(app, o.body_timeout_ms ?? (() => BODY_TIMEOUT_MS));
  coalesceWrites(app);

  // A failure before the request began is its body's (read, decoded, parsed, or refused by media type): the
  // journal records it by type, then it is answered; after, anything thrown is answered in the envelope.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (request.locals != null) return fail(error, request, reply);
    // The framework closes the connection after any body failure; swapsim closes it only where the answer
    // says so (413, 408: the rest is never read), so that a journaled refusal replays to the same headers.
    reply.removeHeader('connection');
    const type = bodyErrorType(error);
    if (type !== null) (error as FastifyError & { type?: string }).type = type;
    beginThen(request, reply, (e) => fail(e ?? error, request, reply), error);
  });
  const beginHook = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    beginThen(request, reply, (e) => done(e as Error | undefined));
  };

  for (const probe of o.probes) {
    const refuse = probe.refuse;
    if (probe.method === undefined || refuse === undefined) {
      app.route({ method: probe.method ?? 'GET', url: probe.path, handler: (request, reply) => probe.serve(request, reply) });
      continue;
    }
    // Its own scope: its body's failures go to its refuse, not to the error handler that would journal them.
    void app.register(async (scope) => {
      scope.setErrorHandler((error, request, reply) => refuse(error, request, reply));
      scope.route({ method: probe.method!, url: probe.path, handler: (request, reply) => probe.serve(request, reply) });
    });
  }
  app.setNotFoundHandler({ preValidation: beginHook }, (request, reply) =>
    fail(o.outside(request.method, pathnameOf(request.url)), request, reply),
  );

  for (const plane of o.planes) {
    const mount = { prefix_length: plane.prefix.length, control: plane.control };
    const gate = plane.gate;
    const gateHook =
      gate && ((request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => done(gate(request) ?? undefined));
    void app.register(
      async (scope) => {
        scope.addHook('preValidation', beginHook);
        if (gateHook) scope.addHook('preHandler', gateHook);
        let document: unknown;
        scope.get('/openapi.json', async (_request, reply) => {
          document ??= plane.document();
          sendJson(reply, 200, document, undefined);
        });
        for (const route of plane.routes)
          scope.route({ method: route.method.toUpperCase() as 'GET', url: route.path, handler: serveRoute(route, o.serving, mount) });
        // The scope's hooks run for its 404 too: it begins, and the gate answers before it.
        scope.setNotFoundHandler((request, reply) =>
          fail(plane.notFound(request.method, pathUnder(request.url, plane.prefix.length)), request, reply),
        );
      },
      { prefix: plane.prefix },
    );
  }
  return app;
}
