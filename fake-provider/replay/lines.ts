// The journal's line shapes (JOURNAL_VERSION): what a recording writes and a replay reads back.
import type { OrganizationInput } from '../organizations.ts';
import type { Profile } from '../profile.ts';

/** Line 1: everything needed to rebuild the same fresh world. */
export type HeaderLine = {
  kind: 'header';
  version: number;
  /** The package version that wrote it: a replay by another version warns (engine changes show as mismatches). */
  swapsim_version: string;
  seed: string;
  /** Seeds the secret stream (API keys swapsim makes, webhook secrets, OTPs): the journal is a secret too. */
  secret_seed: string | null;
  clock: 'virtual' | 'realtime';
  speed: number;
  /** The virtual clock's start; realtime worlds journal their wall-time start as a `start_ms` fact. */
  start_ms: number | null;
  profile: Profile;
  seed_orgs: OrganizationInput[];
  control_token: string | null;
  control_open: boolean;
  /** Where organizations created at runtime without a clock live (RuntimeOptions); absent before issue 26: `shared`. */
  org_worlds?: 'own' | 'shared';
};

/** One HTTP request, written when it takes effect (body read, request id drawn, handler about to run). */
export type RequestLine = {
  kind: 'request';
  request_id: string;
  sim_ms: number;
  /** Wall time and client address: inputs the engine cannot re-derive (conduct findings, per-IP throttles). */
  wall_ms: number;
  ip: string;
  method: string;
  url: string;
  headers: { authorization: string | null; 'idempotency-key': string | null; 'content-type': string | null };
  body: string | null;
  /** Why the body could not be read, by type (http/body.ts; the names body-parser gave, which older journals hold); the replay raises the same error. */
  body_error: string | null;
};

/** What the server answered, written when the reply was handed to the socket (or the socket was reset). */
export type ResponseLine = {
  kind: 'response';
  request_id: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A `lose_response` reset: the connection was destroyed without an answer. */
  reset?: boolean;
};

/** A realtime driver movement. */
export type ClockLine = {
  kind: 'clock';
  sim_ms: number;
  op: 'advance';
  ms: number;
  /** The realtime driver of an organization with a clock of its own (worlds.ts); absent: the server's clock. */
  organization_id?: string;
};

/** An outside answer that arrived later (webhook receiver status, HPKE bundle): a turn of its own. */
export type OutsideLine = {
  kind: 'outside';
  what: string;
  key: string;
  value: unknown;
};

/** An outside value read inside a request's turn (a wall-time rate-limit verdict, a realtime world's start). */
export type FactLine = {
  kind: 'fact';
  what: string;
  key: string;
  value: unknown;
};

/** The server was stopped (SIGTERM): requests a `delay_ms` fault still held were answered 503 at this point. */
type ShutdownLine = {
  kind: 'shutdown';
};

export type JournalLine = HeaderLine | RequestLine | ResponseLine | ClockLine | OutsideLine | FactLine | ShutdownLine;

/** A response as captured on the server, recorded or replayed. */
export type CapturedResponse = Omit<ResponseLine, 'kind' | 'request_id'>;
