// k6: Indicative RFQs (10/s per key, POST /rfqs mode=indicative) under, at and over the limit. Entry script: the phases, thresholds and
// summary come from lib/limit-class.ts; run `k6 run load/k6/indicative-rfqs.ts` (k6 >= 1.0) or the bundle.
import { limitClassScript } from './lib/limit-class.ts';
import { indicativeRequest } from './lib/requests.ts';

const script = limitClassScript<null>(__ENV, {
  script: 'indicative-rfqs',
  limit_class: 'indicative_rfqs',
  send: indicativeRequest(__ENV),
});

export const options = script.options;
export const setup = script.setup;
export const under = script.under;
export const at = script.at;
export const over = script.over;
export const handleSummary = script.handleSummary;
