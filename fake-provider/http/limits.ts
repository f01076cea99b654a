// What a request may be before anything parses it, and the envelope for what node itself refuses: body size
// and nesting depth (checked on the raw bytes, before JSON.parse), undecodable Content-Encoding, and node's own
// client errors (431 headers too large, 400 malformed, 408 too slow) and CONNECT, answered in the envelope;
// the wire guard in front of the body parser (a refusal before reading past the limit, `Expect: 100-continue`,
// a body that never completes, a charset other than UTF-8).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { wallTimeout } from '../../sim/clock.ts';
import type { Duplex } from 'node:stream';
import type { Profile } from '../profile.ts';
import { ApiError, envelope } from './errors.ts';

/** Largest request body read (bytes on the wire after decoding); past it 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects in a body; past it 400 `invalid_parameter`, before any parsing. */
export const MAX_BODY_DEPTH = 64;

/** Thrown from body-parser's `verify` (before JSON.parse); body-parser keeps its `type` for the error middleware. */
export class BodyTooDeep extends Error {
  readonly type = 'entity.too.deep';
  constructor() {
    super(`the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
  }
}

/** Throws BodyTooDeep when the JSON text nests past MAX_BODY_DEPTH (brackets inside strings don't count). */
export function checkDepth(buf: Uint8Array): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_BODY_DEPTH) throw new BodyTooDeep();
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/**
 * A body that could not be read gets a `type` the error middleware (and a journal) can name: an error from
 * the decompressor (a Content-Encoding the bytes don't follow) has none.
 */
export function typedBodyError(err: unknown, contentEncoding: string | undefined): unknown {
  if (err === null || typeof err !== 'object' || (err as { type?: unknown }).type !== undefined) return err;
  if (contentEncoding !== undefined && contentEncoding !== 'identity') return Object.assign(err, { type: 'encoding.invalid' });
  return err;
}

/** How long a request body may take to arrive after its headers (profile `request_body_timeout_ms` overrides it). */
export const BODY_TIMEOUT_MS = 20_000;

/**
 * An error raised like body-parser's own, by `type`: the journal records the type and a replay raises it again;
 * errorMiddleware answers it in the envelope.
 */
const bodyError = (type: string, message: string): Error => Object.assign(new Error(message), { type });

/** The `charset` parameter of a Content-Type, lower-cased; null when there is none. */
export function charsetOf(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const m = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * What the headers alone refuse: a charset other than UTF-8 (the journal keeps bodies as UTF-8 text, so a
 * UTF-16 body would replay as other bytes), or a `Content-Length` past MAX_BODY_BYTES (refused unread). Null
 * for a request with no body or one that may be read.
 */
export function refusedByHeaders(req: IncomingMessage): Error | null {
  const length = req.headers['content-length'];
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return null;
  const charset = charsetOf(req.headers['content-type']);
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') return bodyError('charset.unsupported', 'the request body must be UTF-8');
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) return bodyError('entity.too.large', 'the request body is larger than the limit');
  return null;
}

/**
 * Runs `read` (the JSON body parser) behind the wire guard: a refusal by the headers answers before a byte of
 * the body is read; a body (chunked, or compressed) whose wire bytes pass MAX_BODY_BYTES is refused at that
 * byte; one not complete within `timeout_ms` of wall time is refused `request.timeout`. `next` runs once: the
 * parser's own late callback (body-parser reads a refused body off to its end) is dropped, and the refusal's
 * answer closes the connection (`Connection: close`, errorMiddleware), which is what stops that reading.
 */
export function guardedBody(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, read: (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void, timeout_ms: number): void {
  const refused = refusedByHeaders(req);
  if (refused !== null) return next(refused);
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return read(req, res, next);
  let done = false;
  let seen_bytes = 0;
  const count = (chunk: Buffer): void => {
    seen_bytes += chunk.length;
    if (seen_bytes > MAX_BODY_BYTES) finish(bodyError('entity.too.large', 'the request body is larger than the limit'));
  };
  const cancel = wallTimeout(timeout_ms, () => finish(bodyError('request.timeout', 'the request body did not arrive in time')));
  function finish(err?: unknown): void {
    if (done) return;
    done = true;
    cancel();
    req.off('data', count);
    next(err);
  }
  // Counted beside the parser's own listener (attached in the same tick, so no chunk is missed by either).
  req.on('data', count);
  read(req, res, finish);
}

function reply(socket: Duplex, id: number, status: number, reason: string, err: ApiError, profile: Profile): void {
  // No request was parsed, so no request id was drawn: a recognisable id from the server's own counter.
  const { body } = envelope(err, `req_unparsed_${id.toString(36)}`, profile);
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/** Node's own refusals (and CONNECT, which swapsim does not proxy) answered in the envelope where the socket allows. */
export function answerClientErrors(server: Server, profile: () => Profile): void {
  let unparsed = 0;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') reply(socket, ++unparsed, 431, 'Request Header Fields Too Large', new ApiError('headers_too_large', 'the request headers are larger than the server accepts'), profile());
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') reply(socket, ++unparsed, 408, 'Request Timeout', new ApiError('request_timeout', 'the request was not received in time'), profile());
    else if (err.code === 'ECONNRESET' || err.code === 'EPIPE') socket.destroy();
    else reply(socket, ++unparsed, 400, 'Bad Request', new ApiError('invalid_parameter', `malformed HTTP request (${err.code ?? 'parse error'})`), profile());
  });
  server.on('connect', (_req, socket: Duplex) => {
    reply(socket, ++unparsed, 404, 'Not Found', new ApiError('route_not_found', 'CONNECT is not served: swapsim is not a proxy; the API lives under /v1'), profile());
  });
}
