// k6: Reads (100/s per key, every GET) under, at and over the limit. Entry script: the phases, thresholds and
// summary come from lib/limit-class.ts; run `k6 run load/k6/reads.ts` (k6 >= 1.0) or the bundle.
import { limitClassScript } from './lib/limit-class.ts';
import { readRequest } from './lib/requests.ts';

const script = limitClassScript<null>(__ENV, {
  script: 'reads',
  limit_class: 'reads',
  send: readRequest(__ENV),
});

export const options = script.options;
export const setup = script.setup;
export const under = script.under;
export const at = script.at;
export const over = script.over;
export const handleSummary = script.handleSummary;
