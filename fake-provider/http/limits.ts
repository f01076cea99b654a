// What a request may be before anything parses it, and the envelope for what node itself refuses: body size
// and nesting depth (checked on the raw bytes, before JSON.parse), what the headers alone refuse (a charset
// other than UTF-8, a Content-Length past the limit), and node's own client errors (431 headers too large,
// 400 malformed, 408 too slow) and CONNECT, answered in the envelope on the socket.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Profile } from '../profile.ts';
import { ApiError, envelope } from '../contract/errors.ts';

/** Largest request body read (bytes on the wire after decoding); past it 413 `payload_too_large`. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects in a body; past it 400 `invalid_parameter`, before any parsing. */
export const MAX_BODY_DEPTH = 64;

/** Thrown by the JSON parser before JSON.parse (body.ts); its `type` is the journal's name for it. */
class BodyTooDeep extends Error {
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
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_BODY_DEPTH) throw new BodyTooDeep();
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** How long a request body may take to arrive after its headers (profile `request_body_timeout_ms` overrides it). */
export const BODY_TIMEOUT_MS = 20_000;

/** An error raised by `type`: the journal records the type and a replay raises it again. */
export const bodyError = (type: string, message: string): Error => Object.assign(new Error(message), { type });

/** The `charset` parameter of a Content-Type, lower-cased; null when there is none. */
function charsetOf(contentType: string | undefined): string | null {
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
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8')
    return bodyError('charset.unsupported', 'the request body must be UTF-8');
  if (length !== undefined && Number(length) > MAX_BODY_BYTES)
    return bodyError('entity.too.large', 'the request body is larger than the limit');
  return null;
}

function reply(socket: Duplex, id: number, status: number, reason: string, err: ApiError, profile: Profile): void {
  // No request was parsed, so no request id was drawn: a recognisable id from the server's own counter.
  const { body } = envelope(err, `req_unparsed_${id.toString(36)}`, profile);
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Node's own refusals, answered in the envelope where the socket allows (the server's clientError handler). */
export function clientErrorAnswer(profile: () => Profile): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  let unparsed = 0;
  return (err, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW')
      reply(
        socket,
        ++unparsed,
        431,
        'Request Header Fields Too Large',
        new ApiError('headers_too_large', 'the request headers are larger than the server accepts'),
        profile(),
      );
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      reply(socket, ++unparsed, 408, 'Request Timeout', new ApiError('request_timeout', 'the request was not received in time'), profile());
    else if (err.code === 'ECONNRESET' || err.code === 'EPIPE') socket.destroy();
    else
      reply(
        socket,
        ++unparsed,
        400,
        'Bad Request',
        new ApiError('invalid_parameter', `malformed HTTP request (${err.code ?? 'parse error'})`),
        profile(),
      );
  };
}

/** CONNECT (swapsim is not a proxy): 404 in the envelope on the socket. */
export function refuseConnect(server: Server, profile: () => Profile): void {
  let n = 0;
  server.on('connect', (_req, socket: Duplex) => {
    reply(
      socket,
      ++n,
      404,
      'Not Found',
      new ApiError('route_not_found', 'CONNECT is not served: swapsim is not a proxy; the API lives under /v1'),
      profile(),
    );
  });
}
