// A state folder (state.ts) in process: a first start records, a restart after a kill that cut a line short
// drops that line, reopens the world and appends on a line of its own; truncatePartialLine on its own.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveState, truncatePartialLine } from './state.ts';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'swapsim-state-unit-'));
const KEY = 'sk_state_unit_1';

describe('truncatePartialLine', () => {
  it('cuts what follows the last newline, and only that', () => {
    const f = join(tmp(), 'j.jsonl');
    writeFileSync(f, '{"a":1}\n{"b":2}\n{"c":');
    expect(truncatePartialLine(f)).toBe(true);
    expect(readFileSync(f, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(truncatePartialLine(f)).toBe(false);
    writeFileSync(f, 'no newline at all');
    expect(truncatePartialLine(f)).toBe(true);
    expect(readFileSync(f, 'utf8')).toBe('');
  });
});

describe('serveState', () => {
  it('a restart after a cut-off line reopens the world and appends cleanly', async () => {
    const dir = join(tmp(), 'world');
    const options = { clock: 'virtual' as const, seed: 'state-unit', port: 0, seed_orgs: [{ api_keys: [KEY] }] };
    const first = await serveState({ dir }, options);
    expect(first.reopened).toBeNull();
    const created = await fetch(`${first.running.base_url}/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body: '{"label":"kept"}',
    });
    const account = ((await created.json()) as { account: { account_id: string } }).account;
    await first.running.close();
    appendFileSync(first.journal_path, '{"kind":"request","request_id":"req_cut'); // a kill mid-write
    const second = await serveState({ dir }, { ...options, seed: 'ignored' });
    try {
      expect(second.reopened?.verified).toBe(1);
      const read = await fetch(`${second.running.base_url}/accounts/${account.account_id}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(read.status).toBe(200);
    } finally {
      await second.running.close();
    }
    const lines = readFileSync(first.journal_path, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  }, 30_000);
});
