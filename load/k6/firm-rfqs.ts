// k6: Firm RFQs (5/s per key, POST /rfqs mode=firm) under, at and over the limit. Entry script: the phases, thresholds and
// summary come from lib/limit-class.ts; run `k6 run load/k6/firm-rfqs.ts` (k6 >= 1.0) or the bundle.
import { limitClassScript } from './lib/limit-class.ts';
import { firmRequest, prepareFirm } from './lib/requests.ts';
import type { Funded } from './lib/fixtures.ts';

const script = limitClassScript<Funded>(__ENV, {
  script: 'firm-rfqs',
  limit_class: 'firm_rfqs',
  prepare: prepareFirm(__ENV),
  send: firmRequest(__ENV),
});

export const options = script.options;
export const setup = script.setup;
export const under = script.under;
export const at = script.at;
export const over = script.over;
export const handleSummary = script.handleSummary;
