// Issue 26: after DELETE /_sim/organizations/{id} nothing of the organization is sent. POSTs queued behind its
// receiver's slow answer (a lane sends one per account at a time), or waiting on the answer-slot stagger, are
// dropped before the 200, not sent signed with its secret afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, startTestSim } from '../../testing/harness.ts';
import { startReceiver } from '../../../scenarios/dsl/webhook-receiver.ts';
import { publish } from '../../engine/index.ts';
import { DEFAULT_PROFILE } from '../../profile.ts';

const opened = closeAfterEach(afterEach);

async function queuedThenDeleted(profile = DEFAULT_PROFILE): Promise<number> {
  const s = opened(await startTestSim({ profile }));
  const rx = opened(await startReceiver());
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  rx.answer = async () => {
    await held;
    return 200;
  };
  const org = await s.newOrg();
  expect((await s.api('POST', '/webhooks', { key: org.api_key, body: { url: rx.url } })).status).toBe(200);
  for (let i = 0; i < 5; i++) publish(s.running.runtime.world, org.organization_id, 'acct_q', `test.step_${i}`, {});
  const advancing = s.control('POST', '/clock/advance', { ms: 0 });
  for (let i = 0; i < 200 && rx.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(rx.received).toHaveLength(1);
  expect((await s.control('DELETE', `/organizations/${org.organization_id}`)).status).toBe(200);
  release();
  await advancing;
  // Long enough for a staggered POST (100 ms gap) or a queued one to have left had it not been dropped.
  await new Promise((r) => setTimeout(r, 400));
  return rx.received.length;
}

describe('DELETE organization and its queued deliveries', () => {
  it('drops the POSTs queued in its lane: only the one in flight was sent', async () => {
    expect(await queuedThenDeleted()).toBe(1);
  });

  it('drops the POSTs waiting on the answer-slot stagger', async () => {
    expect(await queuedThenDeleted({ ...DEFAULT_PROFILE, webhook_answer_slot_ms: 60_000, webhook_answer_slot_stagger_ms: 100 })).toBe(1);
  });
});
