// Reads a sampling allocation profile (`.heapprofile`: soak-server.ts `--promoted-prof`, or `node --heap-prof`)
// and prints where the sampled bytes were allocated: by allocating function (self), and by the innermost frame
// in swapsim's own code (so a Buffer made for a webhook POST is charged to the sender, not to Node's
// internals). `node load/bench/alloc-sites.mjs FILE [--top 25]`.
import { readFileSync } from 'node:fs';

const [file] = process.argv.slice(2);
const top_at = process.argv.indexOf('--top');
const top = top_at > 0 ? Number(process.argv[top_at + 1]) : 25;
const profile = JSON.parse(readFileSync(file, 'utf8'));
const ours = (frame) => frame.url.includes('/fake-provider/') || frame.url.includes('/sim/') || frame.url.includes('/load/');
const where = (frame) =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(fake-provider|sim|load|node_modules)\//, '$1/')}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;

const bySelf = new Map();
const byOurs = new Map();
let total = 0;
/** Walks the call tree with its stack: each node's selfSize goes to its own frame and to the innermost of ours. */
function walk(node, stack) {
  const here = [...stack, node.callFrame];
  if (node.selfSize > 0) {
    total += node.selfSize;
    const self = where(node.callFrame);
    bySelf.set(self, (bySelf.get(self) ?? 0) + node.selfSize);
    const mine = here.findLast(ours);
    const key = mine ? where(mine) : '(outside swapsim)';
    byOurs.set(key, (byOurs.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, here);
}
walk(profile.head, []);
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${(v / 2 ** 20).toFixed(1).padStart(8)} MB ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
};
console.log(`sampled ${(total / 2 ** 20).toFixed(1)} MB`);
print('by allocating function', bySelf);
print('by innermost swapsim frame', byOurs);
// The pair (innermost swapsim frame ← allocating function) names an allocation site precisely enough to act on.
const byPair = new Map();
(function pairs(node, stack) {
  const here = [...stack, node.callFrame];
  if (node.selfSize > 0) {
    const mine = here.findLast(ours);
    const key = `${mine ? where(mine) : '(outside swapsim)'}  <-  ${where(node.callFrame)}`;
    byPair.set(key, (byPair.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) pairs(child, here);
})(profile.head, []);
print('by (innermost swapsim frame <- allocating function)', byPair);
