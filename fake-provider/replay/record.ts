// Journaling at the app level: the header that rebuilds the world, one line per request at the moment it
// takes effect (its id is drawn then, so every id-consuming request is journaled), and its answer. In a
// replay the same step takes the recorded request line instead of wall time and the socket address.
import { createRequire } from 'node:module';
import { createJournal, JOURNAL_VERSION, wallNow_ms, type Journal } from '../../sim/index.ts';
import { DEFAULT_PROFILE } from '../profile.ts';
import type { Runtime, RuntimeOptions } from '../runtime.ts';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { headerOf, type Locals } from '../http/pipeline.ts';
import type { Begin } from '../http/planes.ts';
import type { CapturedResponse, HeaderLine, RequestLine } from './lines.ts';
import type { ReplayTape } from './tape.ts';
import { pickWorld } from '../worlds.ts';

export const SWAPSIM_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export function journalHeader(options: RuntimeOptions): HeaderLine {
  return {
    kind: 'header',
    version: JOURNAL_VERSION,
    swapsim_version: SWAPSIM_VERSION,
    seed: String(options.seed ?? 1),
    secret_seed: options.secret_seed ?? null,
    clock: options.clock ?? 'virtual',
    speed: options.speed ?? 1,
    start_ms: options.start_ms ?? null,
    profile: options.profile ?? DEFAULT_PROFILE,
    seed_orgs: options.seed_orgs ?? [],
    control_token: options.control_token ?? null,
    control_open: options.control_open ?? false,
    org_worlds: options.org_worlds ?? 'own',
  };
}

/** The runtime's journal: the given one (a replay), a fresh recording (`journal_path`), or none. */
export function runtimeJournal(options: RuntimeOptions): Journal | undefined {
  if (options.journal) return options.journal;
  if (!options.journal_path) return undefined;
  return createJournal(options.journal_path, { header: journalHeader(options) });
}

/** A realtime world starts at wall time: an input, journaled as a fact (a replay reads it back). */
export function worldStart_ms(options: RuntimeOptions): number | undefined {
  const journal = options.journal;
  if (options.clock !== 'realtime' || options.start_ms !== undefined || !journal || journal.mode === 'off') return options.start_ms;
  if (journal.mode === 'replay') return journal.fact('start_ms', 'world') as number;
  const start_ms = wallNow_ms();
  journal.write({ kind: 'fact', what: 'start_ms', key: 'world', value: start_ms });
  return start_ms;
}

function requestLine(request: FastifyRequest, request_id: string, sim_ms: number, body_error: string | null): RequestLine {
  return {
    kind: 'request',
    request_id,
    sim_ms,
    wall_ms: wallNow_ms(),
    ip: request.raw.socket.remoteAddress ?? 'unknown',
    method: request.method,
    url: request.raw.url ?? '',
    headers: {
      authorization: headerOf(request, 'authorization') ?? null,
      'idempotency-key': headerOf(request, 'idempotency-key') ?? null,
      'content-type': headerOf(request, 'content-type') ?? null,
    },
    body: body_error ? null : (request.rawBody ?? null),
    body_error,
  };
}

const chunkText = (chunk: unknown, encoding: unknown): string => {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return '';
  if (typeof chunk === 'string') return chunk;
  return Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
};

/**
 * Sees the answer exactly as handed to the socket (status, headers, body bytes), or the reset a
 * `lose_response` fault made. The framework hands its headers to writeHead, others set them one by one: both
 * are seen. A client that went away first changes nothing: the handler still answers.
 */
function captureResponse(res: ServerResponse, locals: Locals, report: (r: CapturedResponse) => void): void {
  let done = false;
  let given: Record<string, unknown> | undefined;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const last = args[args.length - 1];
    if (last !== null && typeof last === 'object' && !Array.isArray(last)) given = last as Record<string, unknown>;
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  const end = res.end;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (!done) {
      done = true;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.getHeaders())) if (value !== undefined) headers[name] = String(value);
      if (given) for (const [name, value] of Object.entries(given)) if (value !== undefined) headers[name.toLowerCase()] = String(value);
      report({ status: res.statusCode, headers, body: chunkText(args[0], args[1]) });
    }
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['end'];
  res.once('close', () => {
    if (done || !locals.reset) return;
    done = true;
    report({ status: 0, headers: {}, body: '', reset: true });
  });
}

/**
 * What the planes run once a request's body is read (`err`: why it could not be): gives the request its world
 * and id; with a journal, records it and its answer. Without one the cost is one `if`.
 */
export function requestJournal(runtime: Pick<Runtime, 'world' | 'worlds' | 'keyWorlds'>): Begin {
  return (request, reply, next, err) => {
    // The world it runs in: its key's organization's, or a control call's scope (worlds.ts); the default else.
    const { world, refusal } = pickWorld(runtime, request);
    const journal = world.sim.journal;
    if (journal.mode === 'off') {
      request.locals = { world, request_id: world.newRequestId() };
      next(err ?? refusal ?? undefined);
      return;
    }
    const request_id = world.newRequestId();
    const locals: Locals = { world, request_id };
    request.locals = locals;
    if (journal.mode === 'replay')
      return replayed(journal as ReplayTape, request_id, request, reply, (e?: unknown) => next(e ?? refusal ?? undefined));
    const body_error = err === undefined ? null : String((err as { type?: unknown }).type ?? 'unknown');
    const line = requestLine(request, request_id, world.sim.now_ms(), body_error);
    locals.wall_ms = line.wall_ms;
    locals.ip = line.ip;
    journal.write(line);
    captureResponse(reply.raw, locals, (r) => journal.write({ kind: 'response', request_id, ...r }));
    next(err ?? refusal ?? undefined);
  };
}

/** A replayed request: the recorded line supplies wall time, address and any body error. */
function replayed(tape: ReplayTape, request_id: string, request: FastifyRequest, reply: FastifyReply, next: (err?: unknown) => void): void {
  const line = tape.arrive(request_id);
  // A recorded request without a body stays without one (node's client may have sent Content-Length: 0).
  if (line.body === null) request.body = undefined;
  const locals = request.locals!;
  locals.wall_ms = line.wall_ms;
  locals.ip = line.ip;
  captureResponse(reply.raw, locals, (r) => tape.answered(line.request_id, r));
  const err = line.body_error ? Object.assign(new Error('replayed body error'), { type: line.body_error }) : undefined;
  tape.context.run(line.request_id, () => next(err));
}
