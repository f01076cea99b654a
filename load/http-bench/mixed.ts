// Case (c), the mixed lifecycle: each autocannon cycle is one client's trade — balances read, indicative
// RFQ, firm RFQ on an open credit, quote read, accept, trade read, event-feed read, credits read
// (3 writes, 5 reads). Ids flow through autocannon's per-cycle context; credits come from a shared pool.
import type { Request as CannonRequest } from 'autocannon';
import { CREDIT_ATOMS, FROM_ASSET, TO_ASSET, type FundedAccount } from './setup.ts';

interface Cycle {
  account_id: string;
  destination_id: string;
  credit_id?: string;
  quote_id?: string;
  trade_id?: string;
}

export interface MixedLoad {
  requests: CannonRequest[];
  /** Cycles that found the credit pool empty (they ran reads in place of the trade steps). */
  exhausted(): number;
  cycles(): number;
  /** The pool as it stands: each account with the credits no cycle has taken yet. */
  remaining(): FundedAccount[];
}

const json = (v: unknown): string => JSON.stringify(v);

export function mixedLoad(accounts: FundedAccount[], api_key: string): MixedLoad {
  const pool = accounts.map((a) => ({ ...a, credit_ids: a.credit_ids.slice() }));
  let next = 0;
  let idem = 0;
  let exhausted = 0;
  let cycles = 0;
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${api_key}` });
  const write = (): Record<string, string> => ({
    ...headers(),
    'content-type': 'application/json',
    'idempotency-key': `bench-mixed-${++idem}`,
  });
  const asRead = (req: CannonRequest, c: Cycle): CannonRequest => ({
    ...req,
    method: 'GET',
    path: `/v1/accounts/${c.account_id}/balances`,
    headers: headers(),
    body: undefined,
  });
  // `setupRequest` receives and returns autocannon's raw request object; its context is reset every cycle.
  type Ctx = Cycle & Record<string, unknown>;

  const requests: CannonRequest[] = [
    {
      method: 'GET',
      setupRequest: (req, context) => {
        cycles++;
        const a = pool[next++ % pool.length];
        const ctx = context as Ctx;
        ctx.account_id = a.account_id;
        ctx.destination_id = a.destination_id;
        ctx.credit_id = a.credit_ids.pop();
        if (ctx.credit_id === undefined) exhausted++;
        return { ...req, path: `/v1/accounts/${a.account_id}/balances`, headers: headers() };
      },
    },
    {
      method: 'POST',
      setupRequest: (req) => ({
        ...req,
        path: '/v1/rfqs',
        headers: write(),
        body: json({
          from_asset_key: FROM_ASSET,
          to_asset_key: TO_ASSET,
          side: 'exact_in',
          amount_in_atoms: CREDIT_ATOMS,
          mode: 'indicative',
          wait_ms: 10_000,
        }),
      }),
    },
    {
      method: 'POST',
      setupRequest: (req, context) => {
        const c = context as Ctx;
        if (c.credit_id === undefined) return asRead(req, c);
        const body = {
          account_id: c.account_id,
          credit_id: c.credit_id,
          destination_id: c.destination_id,
          from_asset_key: FROM_ASSET,
          to_asset_key: TO_ASSET,
          side: 'exact_in',
          amount_in_atoms: CREDIT_ATOMS,
          mode: 'firm',
          wait_ms: 10_000,
          ttl_ms: 60_000,
        };
        return { ...req, path: '/v1/rfqs', headers: write(), body: json(body) };
      },
      onResponse: (status, body, context) => {
        if (status === 200 && (context as Ctx).credit_id !== undefined) (context as Ctx).quote_id = JSON.parse(body).rfq.best_quote_id;
      },
    },
    {
      method: 'GET',
      setupRequest: (req, context) => {
        const c = context as Ctx;
        return c.quote_id === undefined ? asRead(req, c) : { ...req, path: `/v1/quotes/${c.quote_id}`, headers: headers() };
      },
    },
    {
      method: 'POST',
      setupRequest: (req, context) => {
        const c = context as Ctx;
        if (c.quote_id === undefined) return asRead(req, c);
        return { ...req, path: `/v1/quotes/${c.quote_id}/accept`, headers: write(), body: json({ slippage_bps: '100' }) };
      },
      onResponse: (status, body, context) => {
        if (status === 200 && (context as Ctx).quote_id !== undefined) (context as Ctx).trade_id = JSON.parse(body).trade.trade_id;
      },
    },
    {
      method: 'GET',
      setupRequest: (req, context) => {
        const c = context as Ctx;
        return c.trade_id === undefined ? asRead(req, c) : { ...req, path: `/v1/trades/${c.trade_id}`, headers: headers() };
      },
    },
    { method: 'GET', setupRequest: (req) => ({ ...req, path: '/v1/events?limit=20', headers: headers() }) },
    {
      method: 'GET',
      setupRequest: (req, context) => ({
        ...req,
        path: `/v1/accounts/${(context as Ctx).account_id}/credits?limit=20`,
        headers: headers(),
      }),
    },
  ];
  return {
    requests,
    exhausted: () => exhausted,
    cycles: () => cycles,
    remaining: () => pool.map((a) => ({ ...a, credit_ids: a.credit_ids.slice() })),
  };
}
