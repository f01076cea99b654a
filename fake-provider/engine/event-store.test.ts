// The columnar event store reads back exactly what was published: envelope bytes, org, seq, order,
// lookups by id and account, across chunk boundaries and past the narrow columns' ranges.
import { describe, expect, it } from 'vitest';
import { createEventStore, type StoredEvent } from './events.ts';
import { publish, publishDerived, selectEvents } from './publish.ts';
import { newWorld } from '../app.ts';

const hex = (n: number): string => n.toString(16).padStart(12, '0');
const evtId = (random: number, counter: number): string => `evt_${hex(random)}${counter.toString(36).padStart(4, '0')}`;

interface Input {
  event_id: string;
  type: string;
  created_at_ms: number;
  account_id: string;
  data: Record<string, unknown>;
  org_id: string;
  seq: number;
}

const envelopeOf = (e: Input) => ({
  event_id: e.event_id,
  type: e.type,
  created_at_ms: e.created_at_ms,
  account_id: e.account_id,
  data: e.data,
});
const stored = (e: Input): StoredEvent => ({ envelope: envelopeOf(e), org_id: e.org_id, seq: e.seq });

describe('event store', () => {
  it('reads every event back byte for byte, by position, id and account, past chunk boundaries', () => {
    const store = createEventStore();
    const inputs: Input[] = [];
    const base_ms = 1_767_225_600_000;
    // Past two chunks (16,384 events each); random parts up to 2^48 - 1, counters from 1 (`0001`) up.
    for (let i = 0; i < 40_000; i++) {
      const e: Input = {
        event_id: evtId(i === 7 ? 2 ** 48 - 1 : (i * 2_654_435_761) % 2 ** 48, i * 3 + 1),
        type: ['deposit.pending', 'trade.settled', 'credit.created'][i % 3],
        created_at_ms: base_ms + i * 250,
        account_id: `acct_${i % 5}`,
        data: Object.freeze({ n: String(i) }),
        org_id: i % 5 === 4 ? 'org_b' : 'org_a',
        seq: i * 2 + 10,
      };
      inputs.push(e);
      store.add(stored(e));
    }
    expect(store.all.length).toBe(inputs.length);
    const all = [...store.all];
    const row = (e: (typeof all)[number]) => [
      JSON.stringify(e.envelope),
      e.org_id,
      e.seq,
      Object.isFrozen(e.envelope),
      Object.keys(e.envelope).join(),
    ];
    const keys = 'event_id,type,created_at_ms,account_id,data';
    expect(all.map(row)).toEqual(inputs.map((e) => [JSON.stringify(envelopeOf(e)), e.org_id, e.seq, true, keys]));
    expect(all.every((e, i) => e.envelope.data === inputs[i].data)).toBe(true);
    for (const i of [0, 7, 16_383, 16_384, 32_768, 39_999]) {
      expect(store.byId.get(inputs[i].event_id)?.envelope).toEqual(envelopeOf(inputs[i]));
      expect(store.byId.has(inputs[i].event_id)).toBe(true);
    }
    // A right counter with a wrong random part, an unknown counter, not an event id: none found.
    expect(store.byId.get(evtId(12345, 1))).toBeUndefined();
    expect(store.byId.get(evtId(0, 2))).toBeUndefined();
    expect(store.byId.has('trd_0000000000000001')).toBe(false);
    expect(store.all.at(-1)?.envelope.event_id).toBe(inputs[inputs.length - 1].event_id);
    expect(store.all.at(inputs.length)).toBeUndefined();
    const mine = store.forAccount('acct_3');
    expect(mine.map((e) => e.envelope.event_id)).toEqual(inputs.filter((e) => e.account_id === 'acct_3').map((e) => e.event_id));
    expect(store.forAccount('acct_none').length).toBe(0);
    expect(store.forOrg('org_b').map((e) => e.envelope.event_id)).toEqual(
      inputs.filter((e) => e.org_id === 'org_b').map((e) => e.event_id),
    );
    expect(store.forOrg('org_none').length).toBe(0);
    expect(store.all.find((e) => e.seq === 30)?.envelope.event_id).toBe(inputs[10].event_id);
    expect(store.all.filter((e) => e.org_id === 'org_b')).toHaveLength(8_000);
  });

  it('keeps times and seqs that do not fit 4 bytes exactly (the columns widen), and the largest counter', () => {
    const store = createEventStore();
    const times = [1_767_225_600_000, 1_767_225_600_000 + 2 ** 32 + 5, 1_767_225_600_000.5, 12, -3];
    const seqs = [1, 2 ** 32 + 1, 2 ** 40, 7, 8];
    const inputs = times.map(
      (created_at_ms, i): Input => ({
        event_id: evtId(i, i === 4 ? 2 ** 32 - 1 : i + 1),
        type: 'x.y',
        created_at_ms,
        account_id: 'acct_1',
        data: {},
        // The same account id under a second org too (only a hand-made publish does that).
        org_id: i === 3 ? 'org_2' : 'org_1',
        seq: seqs[i],
      }),
    );
    for (const e of inputs) store.add(stored(e));
    expect(store.all.map((e) => [e.envelope.created_at_ms, e.seq, e.envelope.event_id])).toEqual(
      inputs.map((e) => [e.created_at_ms, e.seq, e.event_id]),
    );
    expect(store.byId.get(inputs[4].event_id)?.seq).toBe(8);
    expect(store.forAccount('acct_1').map((e) => e.org_id)).toEqual(['org_1', 'org_1', 'org_1', 'org_2', 'org_1']);
    expect(store.byId.get(inputs[1].event_id)?.seq).toBe(2 ** 32 + 1);
  });

  it('refuses an id it could not rebuild, and stores nothing of it', () => {
    const store = createEventStore();
    const bad = { type: 'x.y', created_at_ms: 1, account_id: 'a', data: {}, org_id: 'o', seq: 1 };
    // Upper-case hex, a leading zero beyond 4 counter digits, 3 digits, another prefix, a counter past 32 bits.
    for (const event_id of [
      'evt_ABCDEF0123450001',
      'evt_abcdef01234500001',
      'evt_abcdef012345001',
      'trd_abcdef0123450001',
      `evt_abcdef012345${(2 ** 32).toString(36)}`,
    ]) {
      expect(() => store.add(stored({ ...bad, event_id }))).toThrow(/not an evt id/);
    }
    expect(store.all.length).toBe(0);
  });

  it('selects one org’s events in order; a published event is found by id at once', () => {
    const world = newWorld({ seed: 'event-store', clock: 'virtual' });
    const a = publish(world, 'org_a', 'acct_1', 'deposit.pending', { n: 1 });
    const b = publish(world, 'org_b', 'acct_2', 'deposit.pending', { n: 2 });
    const c = publish(world, 'org_a', 'acct_1', 'credit.created', { n: 3 });
    expect(world.events.byId.get(c.envelope.event_id)).toBe(c);
    expect(world.events.byId.get(a.envelope.event_id)?.envelope).toEqual(a.envelope);
    expect(selectEvents(world, { org_id: 'org_a' }).map((e) => e.envelope.data.n)).toEqual([1, 3]);
    expect(selectEvents(world, { org_id: 'org_b', account_id: 'acct_2' }).map((e) => e.seq)).toEqual([b.seq]);
    expect(selectEvents(world, { org_id: 'org_a', types: ['credit.*'] }).map((e) => e.envelope.event_id)).toEqual([c.envelope.event_id]);
  });

  it('rebuilds derived data from its source on every read, same bytes, frozen; plain events of the same type are kept as given', () => {
    const world = newWorld({ seed: 'event-store-derived', clock: 'virtual' });
    let builds = 0;
    const creditData = (c: { credit_id: string; atoms: bigint }) => {
      builds++;
      return { credit_id: c.credit_id, atoms: c.atoms.toString() };
    };
    const credits = [1n, 2n ** 70n, 3n].map((atoms, i) => ({ credit_id: `cred_${i}`, atoms }));
    const published = credits.map((c, i) =>
      publishDerived(world, 'org_a', `acct_${i % 2}`, 'credit.created', { source: c, build: creditData }),
    );
    const plain = publish(world, 'org_a', 'acct_0', 'credit.created', { credit_id: 'cred_plain', atoms: '9' });
    expect(published.map((e) => e.envelope.data)).toEqual(credits.map((c) => ({ credit_id: c.credit_id, atoms: c.atoms.toString() })));
    expect(builds).toBe(3);
    const read = [...world.events.all].map((e) => e.envelope);
    expect(read.map((e) => JSON.stringify(e))).toEqual([...published, plain].map((e) => JSON.stringify(e.envelope)));
    expect(read.every((e) => Object.isFrozen(e.data))).toBe(true);
    // The store kept the source, not the object the publisher saw: each read of a derived event builds anew.
    expect(builds).toBe(6);
    expect(read[3].data).toBe(plain.envelope.data);
    expect(world.events.byId.get(published[1].envelope.event_id)?.envelope.data).toEqual({
      credit_id: 'cred_1',
      atoms: (2n ** 70n).toString(),
    });
    expect(world.events.forAccount('acct_1').map((e) => e.envelope.data.credit_id)).toEqual(['cred_1']);
    expect(selectEvents(world, { org_id: 'org_a', types: ['credit.created'] })).toHaveLength(4);
  });

  it('an event published from id parts carries exactly the id world.newId would have drawn, and is found by it', () => {
    const a = newWorld({ seed: 'event-ids', clock: 'virtual' });
    const b = newWorld({ seed: 'event-ids', clock: 'virtual' });
    const events: StoredEvent[] = [];
    for (let i = 0; i < 3_000; i++) {
      // Entity and event ids interleave on one counter.
      const want = a.newId(i % 3 === 0 ? 'trd' : 'evt');
      if (i % 3 === 0) expect(b.newId('trd')).toBe(want);
      else {
        const e = publish(b, 'org_a', `acct_${i % 7}`, 'x.y', { i });
        expect(e.envelope.event_id).toBe(want);
        events.push(e);
      }
    }
    for (const e of [events[0], events[999], events.at(-1)!]) expect(b.events.byId.get(e.envelope.event_id)?.envelope).toEqual(e.envelope);
    expect(b.events.byId.get(events.at(-1)!.envelope.event_id)).toBe(events.at(-1));
  });
});

describe('event store retain', () => {
  it('keeps exactly the events accepted, in order, readable by position, id and account; drops the rest', () => {
    const store = createEventStore();
    const inputs: Input[] = [];
    const base_ms = 1_767_225_600_000;
    // Past a chunk boundary (16,384), so the rebuilt columns span chunks too.
    for (let i = 0; i < 20_000; i++) {
      const e: Input = {
        event_id: evtId((i * 2_654_435_761) % 2 ** 48, i * 3 + 1),
        type: ['deposit.pending', 'trade.settled'][i % 2],
        created_at_ms: base_ms + i * 250,
        account_id: `acct_${i % 7}`,
        data: Object.freeze({ n: String(i) }),
        org_id: i % 3 === 0 ? 'org_gone' : 'org_kept',
        seq: i + 1,
      };
      inputs.push(e);
      store.add(stored(e));
    }
    const held = store.all.at(0)!.envelope;
    const cutoff_ms = base_ms + 5_000 * 250;
    const keep = (e: Input) => e.org_id !== 'org_gone' && e.created_at_ms >= cutoff_ms;
    const want = inputs.filter(keep);
    expect(store.retain((org_id, at_ms) => org_id !== 'org_gone' && at_ms >= cutoff_ms)).toBe(inputs.length - want.length);
    expect(store.dropped).toBe(inputs.length - want.length);
    expect(store.all.length).toBe(want.length);
    expect(store.all.map((e) => ({ ...e.envelope }))).toEqual(want.map(envelopeOf));
    expect(store.all.map((e) => [e.org_id, e.seq])).toEqual(want.map((e) => [e.org_id, e.seq]));
    for (const e of [inputs[0], inputs[3], inputs[4_999]]) expect(store.byId.has(e.event_id)).toBe(false);
    for (const e of [want[0], want[want.length - 1], want[1234]]) expect(store.byId.get(e.event_id)?.envelope).toEqual(envelopeOf(e));
    expect(store.forAccount('acct_3').map((e) => e.envelope.event_id)).toEqual(
      want.filter((e) => e.account_id === 'acct_3').map((e) => e.event_id),
    );
    expect(store.forOrg('org_kept').map((e) => e.envelope.event_id)).toEqual(want.map((e) => e.event_id));
    expect(store.forOrg('org_gone').length).toBe(0);
    // An envelope read before stays what it was.
    expect(held).toEqual(envelopeOf(inputs[0]));
    // Appending continues after the retained events.
    const next: Input = { ...inputs[1], event_id: evtId(5, 90_000), org_id: 'org_kept', seq: 99_999, created_at_ms: base_ms + 10_000_000 };
    store.add(stored(next));
    expect(store.all.at(-1)!.envelope).toEqual(envelopeOf(next));
    expect(store.retain(() => true)).toBe(0);
  });
});
