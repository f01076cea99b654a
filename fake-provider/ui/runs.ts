// The dashboard's trigger runs: POST /_sim/ui/triggers/{name}/runs starts one of the scenario library's triggers
// in a chosen organization, GET /_sim/ui/triggers/{name}/runs/{run_id} reads its progress and outcome. A run is
// a client of this server: it drives /v1 with the organization's key and /_sim with the control token over HTTP,
// so its requests are journaled like anyone's. These two routes are not (they are probes, before the journal):
// a replay that ran them again would make every one of the run's requests twice. For the same reason a run's id
// comes from a counter of its own, never from the world's streams. The runner is handed in (trigger-runner.ts);
// without one the routes answer 501 `trigger_runner_missing`.
import { z } from 'zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../runtime.ts';
import type { Probe } from '../http/planes.ts';
import { apiErrorOf, headerOf, sendJson } from '../http/pipeline.ts';
import { controlAllowed } from '../control/gate.ts';
import { ApiError } from '../contract/errors.ts';
import { parseWith } from '../contract/validate.ts';
import { allOrganizations } from '../worlds.ts';
import { refuse } from './assets.ts';
import type { TriggerOutcome } from './trigger-runner.ts';

/** Most step lines a run keeps (a long realtime wait notes a step a second); the outcome's output has them all. */
const MAX_LINES = 2_000;
/** Finished runs kept for reading back, oldest dropped first. */
const KEEP_RUNS = 50;

interface Run {
  run_id: string;
  trigger: string;
  organization_id: string;
  status: 'running' | 'passed' | 'failed';
  lines: string[];
  failure: string | null;
  output: string | null;
  run: unknown;
}

const runBody = z
  .object({
    organization_id: z.string().min(1).max(200),
    account_id: z.string().min(1).max(200).optional(),
  })
  .strict();

/** This server as its own client reaches it: the address and port the request came in on. */
function selfOrigin(request: FastifyRequest): string {
  const socket = request.raw.socket;
  const raw = socket.localAddress ?? '127.0.0.1';
  const address = raw.startsWith('::ffff:') ? raw.slice(7) : raw;
  return `http://${address.includes(':') ? `[${address}]` : address}:${socket.localPort}`;
}

const view = (r: Run) => ({
  run_id: r.run_id,
  trigger: r.trigger,
  organization_id: r.organization_id,
  status: r.status,
  lines: r.lines,
  failure: r.failure,
  output: r.output,
  run: r.run,
});

/** The run routes, as probes (http/planes.ts): gated like the control plane, answered outside the journal. */
export function uiRunRoutes(runtime: Runtime): Probe[] {
  const runs = new Map<string, Run>();
  /** The run under way per organization: one at a time (two would race for the same clock and faults). */
  const running = new Map<string, string>();
  let counter = 0;

  /** The gate, then the runner: the refusal, or the runner to use. */
  const admit = (request: FastifyRequest) => {
    const refused = controlAllowed(runtime, request.raw.socket.remoteAddress, headerOf(request, 'authorization'));
    if (refused) throw refused;
    const runner = runtime.options.trigger_runner;
    if (!runner)
      throw new ApiError(
        'trigger_runner_missing',
        'this server runs no triggers: it was not started by `swapsim serve` (run `swapsim trigger NAME --api-key KEY` instead)',
      );
    return runner;
  };
  const answer = async (reply: FastifyReply, fn: () => Promise<{ status: number; body: unknown }>): Promise<void> => {
    try {
      const { status, body } = await fn();
      sendJson(reply, status, body, { 'cache-control': 'no-store' });
    } catch (err) {
      refuse(
        reply,
        runtime,
        apiErrorOf(err, () => console.error('[swapsim] trigger run route:', err)),
      );
    }
  };

  const start = async (request: FastifyRequest): Promise<{ status: number; body: unknown }> => {
    const runner = admit(request);
    const name = (request.params as { name: string }).name;
    if (!(await runner.names()).includes(name))
      throw new ApiError('not_found', `no trigger '${name}' (GET /_sim/ui/triggers.json lists them)`, { param: 'name' });
    const body = parseWith(runBody, request.body ?? {}, 'body');
    const org = allOrganizations(runtime).find((o) => o.org.organization_id === body.organization_id)?.org;
    if (!org) throw new ApiError('not_found', `no organization ${body.organization_id}`, { param: 'organization_id' });
    const busy = running.get(org.organization_id);
    if (busy !== undefined)
      throw new ApiError('trigger_run_in_progress', `${runs.get(busy)!.trigger} (${busy}) is still running in ${org.organization_id}`, {
        details: { run_id: busy, trigger: runs.get(busy)!.trigger },
      });
    counter += 1;
    const run: Run = {
      run_id: `trun_${counter}`,
      trigger: name,
      organization_id: org.organization_id,
      status: 'running',
      lines: [],
      failure: null,
      output: null,
      run: null,
    };
    runs.set(run.run_id, run);
    running.set(org.organization_id, run.run_id);
    for (const id of runs.keys()) {
      if (runs.size <= KEEP_RUNS) break;
      if (runs.get(id)!.status !== 'running') runs.delete(id);
    }
    const origin = selfOrigin(request);
    const finish = (o: TriggerOutcome): void => {
      run.status = o.ok ? 'passed' : 'failed';
      run.failure = o.failure;
      run.output = o.output;
      run.run = o.run;
      running.delete(run.organization_id);
    };
    runner
      .run(
        name,
        {
          base_url: `${origin}/v1`,
          control_url: `${origin}/_sim`,
          api_key: org.api_keys[0],
          ...(runtime.options.control_token ? { control_token: runtime.options.control_token } : {}),
          ...(body.account_id ? { account_id: body.account_id } : {}),
        },
        (line) => {
          if (run.lines.length < MAX_LINES) run.lines.push(line);
        },
      )
      .then(finish, (err: unknown) =>
        // A runner resolves with its failures; one that throws is reported as the run's failure all the same.
        finish({ ok: false, failure: `the runner failed: ${err instanceof Error ? err.message : String(err)}`, output: '', run: null }),
      );
    return { status: 202, body: { run: view(run) } };
  };

  const read = async (request: FastifyRequest): Promise<{ status: number; body: unknown }> => {
    admit(request);
    const { name, run_id } = request.params as { name: string; run_id: string };
    const run = runs.get(run_id);
    if (!run || run.trigger !== name) throw new ApiError('not_found', `no run ${run_id} of trigger '${name}'`, { param: 'run_id' });
    return { status: 200, body: { run: view(run) } };
  };

  return [
    {
      path: '/_sim/ui/triggers/:name/runs',
      method: 'POST',
      serve: (request, reply) => void answer(reply, () => start(request)),
      // A body that fails to parse is answered here too: never journaled, like the run itself.
      refuse: (err, _request, reply) =>
        refuse(
          reply,
          runtime,
          apiErrorOf(err, () => undefined),
        ),
    },
    { path: '/_sim/ui/triggers/:name/runs/:run_id', serve: (request, reply) => void answer(reply, () => read(request)) },
  ];
}
