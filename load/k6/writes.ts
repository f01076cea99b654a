// k6: Writes (20/s per key, POST/PATCH/DELETE) under, at and over the limit. Entry script: the phases, thresholds and
// summary come from lib/limit-class.ts; run `k6 run load/k6/writes.ts` (k6 >= 1.0) or the bundle.
import { limitClassScript } from './lib/limit-class.ts';
import { writeRequest, prepareWrite } from './lib/requests.ts';

const script = limitClassScript<string>(__ENV, {
  script: 'writes',
  limit_class: 'writes',
  prepare: prepareWrite(__ENV),
  send: writeRequest(),
});

export const options = script.options;
export const setup = script.setup;
export const under = script.under;
export const at = script.at;
export const over = script.over;
export const handleSummary = script.handleSummary;
