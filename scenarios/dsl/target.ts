// Where a scenario runs: a fresh in-process swapsim (ephemeral port, virtual clock, the given seed), or a
// swapsim already running elsewhere (`--base-url/--api-key/--control-url`). Either way the scenario gets
// its own organization from POST /_sim/organizations, so runs on a shared server do not interfere.
import { serve } from '../../fake-provider/server.ts';
import { controlClient, type ControlClient } from '../../lib/http-client.ts';

export interface RemoteTarget {
  base_url: string;
  control_url: string;
  /** A key of the running server; kept for reference: each scenario creates its own org and key. */
  api_key?: string;
  control_token?: string;
}

export interface TargetOptions {
  seed: string;
  remote?: RemoteTarget;
}

/** Organization settings a scenario asks for (the body of POST /_sim/organizations). */
export interface OrgOptions {
  platform_fee_bps?: string;
  integrator_fee_bps?: string;
  recovery_enabled?: boolean;
  partner_screening?: boolean;
  forbidden_assets?: string[];
  rate_limits?: { reads?: number; writes?: number; indicative_rfqs?: number; firm_rfqs?: number };
}

export interface Target {
  /** `caller`: the organization is the caller's own (a trigger: `swapsim trigger`, scenarios/dsl/trigger.ts). */
  mode: 'in-process' | 'remote' | 'caller';
  base_url: string;
  control: ControlClient;
  organization_id: string;
  api_key: string;
  /** The server's clock (default virtual): on a realtime one short steps are waited for, long ones jumped. */
  clock_mode?: 'virtual' | 'realtime';
  /** In the caller's organization: the account to use instead of a new one, and a tag that keeps reruns apart. */
  caller?: CallerContext;
  close(): Promise<void>;
}

export interface CallerContext {
  /** `--account`: the edge case runs in this existing account (balances are then checked as changes). */
  account_id?: string;
  /** Goes into Idempotency-Keys and generated addresses, so a second run is a new run, not a replay. */
  run_tag: string;
}

/** Scenarios are not about wall-time throttling unless they say so (the rate-limit storm sets its own). */
const UNTHROTTLED = { reads: 100_000, writes: 100_000, indicative_rfqs: 100_000, firm_rfqs: 100_000 };

async function createOrg(control: ControlClient, org: OrgOptions): Promise<{ organization_id: string; api_key: string }> {
  const r = await control.call('POST', '/organizations', { ...org, rate_limits: { ...UNTHROTTLED, ...org.rate_limits } });
  if (r.status !== 200) throw new Error(`POST /_sim/organizations: ${r.status} ${r.network_error ?? JSON.stringify(r.body)}`);
  return { organization_id: r.body.organization.organization_id, api_key: r.body.organization.api_key };
}

export async function openTarget(opts: TargetOptions, org: OrgOptions = {}): Promise<Target> {
  if (opts.remote) {
    const control = controlClient(opts.remote.control_url.replace(/\/$/, ''), opts.remote.control_token);
    const clock = await control.call('GET', '/clock');
    if (clock.status !== 200)
      throw new Error(
        `cannot reach the control plane at ${opts.remote.control_url}: ${clock.status} ${clock.network_error ?? JSON.stringify(clock.body)}`,
      );
    if (clock.body.clock.mode !== 'virtual')
      throw new Error(`the swapsim at ${opts.remote.control_url} runs a ${clock.body.clock.mode} clock; scenarios need --clock virtual`);
    const created = await createOrg(control, org);
    return {
      mode: 'remote',
      base_url: opts.remote.base_url.replace(/\/$/, ''),
      control,
      ...created,
      clock_mode: 'virtual',
      close: async () => undefined,
    };
  }
  // One tenant on its own server: it stays in the server's world, so a scenario's bytes are what they were.
  const running = await serve({ clock: 'virtual', seed: opts.seed, port: 0, org_worlds: 'shared' });
  const control = controlClient(running.control_url);
  const created = await createOrg(control, org);
  return { mode: 'in-process', base_url: running.base_url, control, ...created, close: () => running.close() };
}
