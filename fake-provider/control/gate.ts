// The control plane's gate: loopback clients only, unless the runtime has a control token, in which
// case every caller must present it as a bearer token (compared in constant time).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Runtime } from '../runtime.ts';
import { ApiError } from '../contract/errors.ts';
import { bearerToken } from '../http/auth.ts';
import type { FastifyRequest } from 'fastify';
import { clientIp, headerOf } from '../http/pipeline.ts';

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export function controlAllowed(
  runtime: Pick<Runtime, 'options'>,
  remoteAddress: string | undefined,
  authorization: string | undefined,
): ApiError | null {
  const token = runtime.options.control_token;
  if (token) {
    const given = bearerToken(authorization);
    if (given === undefined || !timingSafeEqual(digest(given), digest(token))) {
      return new ApiError('unauthorized', 'the control plane requires its bearer token', { param: 'Authorization' });
    }
    return null;
  }
  if (runtime.options.control_open || isLoopback(remoteAddress)) return null;
  return new ApiError('forbidden', 'the control plane answers loopback clients only (start with --control-token to open it)');
}

/** The /_sim plane's gate (http/planes.ts): the refusal for this request, or null. */
export function controlGate(runtime: Pick<Runtime, 'options'>): (request: FastifyRequest) => ApiError | null {
  // A journaled (or replayed) request carries its recorded client address in its locals.
  return (request) => controlAllowed(runtime, clientIp(request), headerOf(request, 'authorization'));
}
