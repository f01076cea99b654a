// The relay's re-signing for a batch, over real HTTP: a delivery correctly signed with the lane provider's
// secret reaches the app with the same timestamp and body bytes and a signature that verifies with the app's
// secret; a wrongly signed one (verify's bad_signature effect) still fails to verify; with no app secret set
// (a run alone) deliveries go as they came; the observer sees every body forwarded.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validSignature } from '../examples/reference-integrator/app.ts';
import { startRelay, type Relay } from './relay.ts';

const sign = (secret: string, ts: string, body: Buffer): string =>
  `v1=${createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex')}`;

let app: Server;
let relay: Relay;
const received: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = [];

beforeAll(async () => {
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', () => resolve()));
  relay = await startRelay({
    app_webhook_url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks`,
    handler_limit_ms: 5_000,
    slow_after_ms: 5_000,
  });
});

afterAll(async () => {
  await relay.close();
  app.closeAllConnections();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

/** Posts a delivery to the relay as the provider would, and returns what the app received. */
async function deliver(
  body: Buffer,
  signature: string,
  ts = '1767225600000',
): Promise<{ headers: IncomingMessage['headers']; body: Buffer }> {
  const before = received.length;
  const res = await fetch(relay.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'svc-timestamp': ts,
      'svc-signature': signature,
      'svc-event-id': 'evt_1',
      'svc-delivery-id': 'dlv_1',
    },
    body,
  });
  expect(res.status).toBe(200);
  expect(received.length).toBe(before + 1);
  return received[before];
}

describe('relay re-signing (a batch behind the hub)', () => {
  // Spacing and key order the app must not see changed: the signature covers these exact bytes.
  const body = Buffer.from('{"event_id":"evt_1", "type":"trade.settled","account_id":"acct_1","data":{"n":1}}');

  it('re-signs a correctly signed delivery for the app secret, same timestamp and body bytes', async () => {
    relay.reset();
    relay.setSecret('whsec_lane');
    relay.setAppSecret('whsec_shared');
    const seen: string[] = [];
    relay.setObserver((b) => seen.push(b.toString('utf8')));
    const got = await deliver(body, sign('whsec_lane', '1767225600000', body));
    expect(got.body.equals(body)).toBe(true);
    expect(got.headers['svc-timestamp']).toBe('1767225600000');
    expect(validSignature('whsec_shared', '1767225600000', got.body, String(got.headers['svc-signature']))).toBe(true);
    expect(validSignature('whsec_lane', '1767225600000', got.body, String(got.headers['svc-signature']))).toBe(false);
    expect(seen).toEqual([body.toString('utf8')]);
  });

  it('leaves a wrongly signed delivery wrong (it verifies with neither secret)', async () => {
    relay.reset();
    relay.setSecret('whsec_lane');
    relay.setAppSecret('whsec_shared');
    const bad = sign('whsec_other', '1767225600000', body);
    const got = await deliver(body, bad);
    expect(got.headers['svc-signature']).toBe(bad);
    expect(validSignature('whsec_shared', '1767225600000', got.body, bad)).toBe(false);
  });

  it('forwards as it came when no app secret is set (a run alone), and reset turns re-signing off', async () => {
    relay.reset();
    relay.setSecret('whsec_lane');
    const signature = sign('whsec_lane', '1767225600001', body);
    const got = await deliver(body, signature, '1767225600001');
    expect(got.headers['svc-signature']).toBe(signature);
  });
});

describe('the copy gate: two copies of a delivery reach their first provider call before either goes on', () => {
  /** An app whose handler (one at a time when `serial`) marks its arrival, makes a "provider call" through the gate, then marks it done. */
  async function gatedApp(serial: boolean): Promise<{ relay: Relay; marks: string[]; close: () => Promise<void> }> {
    const marks: string[] = [];
    let queue = Promise.resolve();
    let r: Relay | undefined;
    const handle = async (n: number): Promise<void> => {
      marks.push(`arrive ${n}`);
      await r!.gate();
      marks.push(`pass ${n}`);
    };
    let next = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const n = ++next;
        const run = serial ? (queue = queue.then(() => handle(n))) : handle(n);
        void run.then(() => res.writeHead(200).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    r = await startRelay({
      app_webhook_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      handler_limit_ms: 5_000,
      slow_after_ms: 5_000,
    });
    return {
      relay: r,
      marks,
      close: async () => {
        await r!.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }
  const body = Buffer.from('{"event_id":"evt_9","type":"credit.created","account_id":"acct_9","data":{}}');
  const post = (relay: Relay) =>
    fetch(relay.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'svc-timestamp': '1',
        'svc-signature': 'v1=x',
        'svc-event-id': 'evt_9',
        'svc-delivery-id': 'dlv_9',
      },
      body,
    });

  it('concurrent copies: both handlers arrive before either passes its provider call, every time', async () => {
    const app = await gatedApp(false);
    try {
      for (let i = 0; i < 5; i++) {
        app.marks.length = 0;
        app.relay.reset();
        app.relay.concurrentCopies('acct_9', 'credit.created', 1);
        expect((await post(app.relay)).status).toBe(200);
        expect(app.marks.map((m) => m.split(' ')[0])).toEqual(['arrive', 'arrive', 'pass', 'pass']);
      }
    } finally {
      await app.close();
    }
  });

  it('a receiver that handles one copy after the other is held once, then goes on; with no copies nothing waits', async () => {
    const app = await gatedApp(true);
    try {
      app.relay.concurrentCopies('acct_9', 'credit.created', 1);
      expect((await post(app.relay)).status).toBe(200);
      expect(app.marks).toEqual(['arrive 1', 'pass 1', 'arrive 2', 'pass 2']);
      app.marks.length = 0;
      expect((await post(app.relay)).status).toBe(200);
      expect(app.marks).toEqual(['arrive 3', 'pass 3']);
      expect(app.relay.records.map((r) => r.kind)).toEqual(['provider', 'concurrent_copy', 'provider']);
    } finally {
      await app.close();
    }
  });
});

describe("verify's own calls to the app (quietly): no delivery of the relay is at the app meanwhile", () => {
  /** A relay before an app that answers each delivery when told to; `limits` are the relay's handler limit and latency limit. */
  async function heldApp(limits: { handler_limit_ms: number; slow_after_ms: number }) {
    const marks: string[] = [];
    const answers: Array<() => void> = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['svc-event-id']);
        marks.push(`arrive ${id}`);
        answers.push(() => {
          marks.push(`answer ${id}`);
          res.writeHead(200).end();
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const relay = await startRelay({ app_webhook_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, ...limits });
    const post = (id: string) =>
      fetch(relay.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'svc-timestamp': '1', 'svc-signature': 'v1=x', 'svc-event-id': id },
        body: JSON.stringify({ event_id: id, type: 'credit.created', account_id: 'acct_q', data: {} }),
      });
    const close = async (): Promise<void> => {
      await relay.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return { relay, post, marks, answers, close };
  }
  const until = async (check: () => boolean): Promise<void> => {
    while (!check()) await new Promise((r) => setTimeout(r, 5));
  };

  it('waits for the delivery in flight to be answered, and holds the next one until the call has ended', async () => {
    const { relay, post, marks, answers, close } = await heldApp({ handler_limit_ms: 5_000, slow_after_ms: 2_000 });
    try {
      const first = post('evt_a');
      await until(() => marks.includes('arrive evt_a'));
      let second: Promise<Response> | null = null;
      const call = relay.quietly(async () => {
        marks.push('call starts');
        // A delivery the provider sends while the call is under way waits for it to end.
        second = post('evt_b');
        await new Promise((r) => setTimeout(r, 100));
        marks.push('call ends');
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(marks).toEqual(['arrive evt_a']);
      answers.shift()!();
      await call;
      await until(() => marks.includes('arrive evt_b'));
      answers.shift()!();
      expect((await first).status).toBe(200);
      expect((await second!)!.status).toBe(200);
      expect(marks).toEqual(['arrive evt_a', 'answer evt_a', 'call starts', 'call ends', 'arrive evt_b', 'answer evt_b']);
    } finally {
      await close();
    }
  });

  it('lets a held delivery go once holding it longer could make a correct answer late (handler limit - latency limit)', async () => {
    // The provider gives up after 1 s and a correct app may take 0.8 s: a delivery is held 0.2 s at most.
    const { relay, post, marks, answers, close } = await heldApp({ handler_limit_ms: 1_000, slow_after_ms: 800 });
    try {
      let delivered: Promise<Response> | null = null;
      await relay.quietly(async () => {
        delivered = post('evt_c');
        await until(() => marks.includes('arrive evt_c'));
        marks.push('call ends');
      });
      answers.shift()!();
      expect((await delivered!)!.status).toBe(200);
      expect(marks).toEqual(['arrive evt_c', 'call ends', 'answer evt_c']);
    } finally {
      await close();
    }
  });
});
