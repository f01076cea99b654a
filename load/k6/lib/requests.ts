// One request of each documented limit class, as the spec's Limits section assigns them: reads are
// GETs, writes are POST/PATCH/DELETE, indicative and firm RFQs are POST /rfqs by mode (and count as
// writes too). Each request is harmless to repeat: reads, an email PATCH, RFQs that are never accepted.
import { call, type Res } from './api.ts';
import { envString, type Env } from './config.ts';
import type { ControlInfo } from './control.ts';
import type { SegmentInfo } from './segment.ts';
import { assetsConfig, createAccount, fundedAccount, type Api, type Funded } from './fixtures.ts';

export function readRequest(env: Env): (api: Api, _f: null, _seq: string) => Res {
  const path = envString(env, 'READ_PATH', '/accounts?limit=1');
  return (api) => call(api.base_url, 'GET', path, { key: api.key, name: path.replace(/\?.*$/, '') });
}

/** An account to PATCH: WRITE_ACCOUNT_ID, or one created per key (a single account per run). */
export function prepareWrite(env: Env): (api: Api, _ctl: ControlInfo | null, _env: Env, prefix: string) => string {
  return (api, _ctl, _env, prefix) =>
    envString(env, 'WRITE_ACCOUNT_ID', '') || createAccount(api, `${prefix}-write-acct`, { label: 'k6 writes' });
}

export function writeRequest(): (api: Api, account_id: string, _seq: string) => Res {
  // The same email every time: the write changes nothing after the first, yet counts against the limit.
  return (api, account_id) =>
    call(api.base_url, 'PATCH', `/accounts/${account_id}`, {
      key: api.key,
      body: { email: 'k6-load@example.com' },
      name: '/accounts/{id}',
    });
}

export function indicativeRequest(env: Env): (api: Api, _f: null, seq: string) => Res {
  const a = assetsConfig(env);
  const body = {
    from_asset_key: a.from_asset_key,
    to_asset_key: a.to_asset_key,
    side: 'exact_in',
    amount_in_atoms: a.amount_in_atoms,
    mode: 'indicative',
    wait_ms: 0,
  };
  return (api, _f, seq) =>
    call(api.base_url, 'POST', '/rfqs', { key: api.key, idem: seq, body, name: '/rfqs indicative', tags: { mode: 'indicative' } });
}

/**
 * A funded account for firm RFQs: through the control plane (a real deposit), or FIRM_ACCOUNT_ID,
 * FIRM_CREDIT_ID and FIRM_DESTINATION_ID (all keys must belong to that account's organization).
 */
export function prepareFirm(env: Env): (api: Api, ctl: ControlInfo | null, _env: Env, prefix: string, seg: SegmentInfo) => Funded {
  return (api, ctl, _env, prefix, seg) => {
    const given = {
      account_id: envString(env, 'FIRM_ACCOUNT_ID', ''),
      credit_id: envString(env, 'FIRM_CREDIT_ID', ''),
      destination_id: envString(env, 'FIRM_DESTINATION_ID', ''),
    };
    if (given.account_id && given.credit_id && given.destination_id) return given;
    if (ctl === null)
      throw new Error(
        'firm RFQs need a funded credit: reach a swapsim control plane (CONTROL_URL) or set FIRM_ACCOUNT_ID, FIRM_CREDIT_ID, FIRM_DESTINATION_ID',
      );
    return fundedAccount(api, ctl, assetsConfig(env), prefix, seg.leader);
  };
}

export function firmRequest(env: Env): (api: Api, f: Funded, seq: string) => Res {
  const a = assetsConfig(env);
  return (api, f, seq) =>
    call(api.base_url, 'POST', '/rfqs', {
      key: api.key,
      idem: seq,
      name: '/rfqs firm',
      tags: { mode: 'firm' },
      body: {
        account_id: f.account_id,
        credit_id: f.credit_id,
        destination_id: f.destination_id,
        from_asset_key: a.from_asset_key,
        to_asset_key: a.to_asset_key,
        side: 'exact_in',
        amount_in_atoms: a.amount_in_atoms,
        mode: 'firm',
        wait_ms: 0,
      },
    });
}
