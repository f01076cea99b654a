// Request bodies on the framework: its content-type parsers (JSON, nesting depth judged on the bytes before
// JSON.parse, the text kept for the journal; any other media type with a body refused 415), its body limit
// (413), and a preParsing step for what the framework leaves to plugins: a charset other than UTF-8 and an
// oversized Content-Length refused before a byte is read, Content-Encoding (gzip, deflate, br) decoded with
// the wire bytes counted against the limit too, and a body that does not arrive in time (408). Every failure
// carries a `type` (the journal's vocabulary; pipeline.ts bodyApiError answers it).
import { isUtf8 } from 'node:buffer';
import { PassThrough, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { wallTimeout } from '../../sim/clock.ts';
import { bodyError, checkDepth, MAX_BODY_BYTES, refusedByHeaders } from './limits.ts';

/** The framework's own body refusals, by code, in the journal's vocabulary. */
const FRAMEWORK_TYPES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'entity.too.large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'content_type.unsupported',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'request.size.invalid',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'entity.parse.failed',
  FST_ERR_CTP_INVALID_JSON_BODY: 'entity.parse.failed',
};

/**
 * The `type` of a failure met before the request began (reading or parsing its body), or null when it is not
 * a body's. A client that went away mid-body is `request.aborted`.
 */
export function bodyErrorType(err: unknown): string | null {
  if (err === null || typeof err !== 'object') return null;
  const { type, code } = err as { type?: unknown; code?: unknown };
  if (typeof type === 'string') return type;
  if (typeof code === 'string') {
    if (FRAMEWORK_TYPES[code] !== undefined) return FRAMEWORK_TYPES[code];
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') return 'request.aborted';
  }
  if ((err as Error).message === 'aborted') return 'request.aborted';
  return null;
}

const hasBody = (request: FastifyRequest): boolean =>
  request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;

/** A decoder for each Content-Encoding journals hold bodies in (the ones body-parser accepted); undefined for identity. */
function decoderFor(encoding: string): Readable | undefined | null {
  if (encoding === 'identity') return undefined;
  if (encoding === 'gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return null;
}

/**
 * The body as the parsers read it: decoded, with `receivedEncodedLength` (the framework's own field for it)
 * counting wire bytes so that a compressed body is held to the limit on both sides, and a wall-time deadline.
 */
function guardedStream(request: FastifyRequest, answered: NodeJS.EventEmitter, payload: Readable, timeout_ms: number): Readable {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder = decoderFor(encoding);
  if (decoder === null) throw bodyError('encoding.unsupported', `unsupported content encoding "${encoding}"`);
  const out = (decoder ?? new PassThrough()) as Readable & { receivedEncodedLength: number };
  out.receivedEncodedLength = 0;
  // Errors are the parser's to report; one may come when no parser reads (a refused media type).
  out.on('error', () => undefined);
  const fail = (type: string, message: string): void => {
    payload.unpipe(out as unknown as NodeJS.WritableStream);
    out.emit('error', bodyError(type, message));
  };
  const cancel = wallTimeout(timeout_ms, () => fail('request.timeout', 'the request body did not arrive in time'));
  payload.on('data', (chunk: Buffer) => {
    out.receivedEncodedLength += chunk.length;
  });
  if (decoder !== undefined) {
    // The decompressor's own error has no type: the bytes do not follow their Content-Encoding.
    decoder.on('error', (e: Error & { type?: string }) => {
      e.type ??= 'encoding.invalid';
    });
  }
  out.once('end', cancel);
  out.once('error', cancel);
  // Answered without reading the body (refused unread): no deadline is left to keep.
  answered.once('close', cancel);
  payload.once('error', (e) => out.emit('error', e));
  payload.pipe(out as unknown as NodeJS.WritableStream);
  return out;
}

/**
 * Parses a JSON body the way journals recorded it: empty is `{}`, any JSON value, a leading BOM dropped. Bytes
 * that are not UTF-8 are refused, not replaced with U+FFFD: JSON text is UTF-8 (RFC 8259 §8.1), and a journal
 * keeps the body as text, so a replaced byte would be stored as a character the client never sent.
 */
function parseJson(request: FastifyRequest, buf: Buffer): unknown {
  // Depth is judged on the bytes, before JSON.parse: nothing downstream ever walks a deep body.
  checkDepth(buf);
  if (!isUtf8(buf)) throw bodyError('entity.not_utf8', 'the request body is not UTF-8');
  const text = buf.toString('utf8');
  request.rawBody = text;
  if (text.length === 0) return {};
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw bodyError('entity.parse.failed', 'the request body is not valid JSON');
  }
}

/**
 * Installs body handling on the app: `timeout_ms` is read per request (profile `request_body_timeout_ms`).
 * A request without a body (no Content-Length nor Transfer-Encoding; GET and HEAD always) is never read.
 */
export function installBodyParsing(app: FastifyInstance, timeout_ms: () => number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, buf, done) => {
    try {
      done(null, parseJson(request, buf as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // Any other media type: an empty body is no body to judge (journals hold these as `{}`); else 415, unread.
  app.addContentTypeParser('*', (request, _payload, done) => {
    if (request.headers['content-length'] === '0') {
      request.rawBody = '';
      done(null, {});
    } else done(bodyError('content_type.unsupported', 'content type is not application/json'), undefined);
  });
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!hasBody(request)) return done(null, payload);
    // What the headers alone refuse is answered before a byte of the body is read.
    const refused = refusedByHeaders(request.raw);
    if (refused !== null) return done(refused);
    try {
      done(null, guardedStream(request, reply.raw, payload, timeout_ms()));
    } catch (e) {
      done(e as Error);
    }
  });
}
