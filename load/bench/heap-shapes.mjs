// Where a heap snapshot's bytes are: `node --max-old-space-size=8000 load/bench/heap-shapes.mjs FILE.heapsnapshot [rows]`.
// Prints (1) objects by constructor and property names (a plain object's shape says which record it is), with the
// strings and arrays only they point to, and (2) the largest retained sizes (dominator tree) and what the
// scheduler's timers retain. Take the snapshot with `--heapsnapshot-signal=SIGUSR2` (docs/shared-server.md).
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-shapes.mjs FILE.heapsnapshot [rows]');
const rows = Number(rowsArg ?? 30);
const snap = JSON.parse(readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields;
const NF = nf.length;
const ef = meta.edge_fields;
const EF = ef.length;
const ntypes = meta.node_types[0];
const etypes = meta.edge_types[0];
const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
const { nodes, edges, strings } = snap;
const N = nodes.length / NF;
const WEAK = etypes.indexOf('weak');
const first = new Uint32Array(N + 1);
for (let v = 0, e = 0; v < N; v++) {
  first[v] = e;
  e += nodes[v * NF + iEdges] * EF;
  first[v + 1] = e;
}
const typeOf = (v) => ntypes[nodes[v * NF + iType]];
const nameOf = (v) => `${typeOf(v)}:${strings[nodes[v * NF + iName]].slice(0, 50)}`;
const mb = (b) => (b / 2 ** 20).toFixed(2).padStart(8);

// (1) By shape.
const indegree = new Uint32Array(N);
for (let e = 0; e < edges.length; e += EF) if (edges[e + eType] !== WEAK) indegree[edges[e + eTo] / NF]++;
const OWNED = new Set(['string', 'concatenated string', 'array', 'hidden', 'number', 'object']);
const shapes = new Map();
let total = 0;
for (let v = 0; v < N; v++) {
  total += nodes[v * NF + iSize];
  const t = typeOf(v);
  if (t !== 'object' && t !== 'closure') continue;
  const props = [];
  let bytes = nodes[v * NF + iSize];
  for (let e = first[v]; e < first[v + 1]; e += EF) {
    const et = etypes[edges[e + eType]];
    const to = edges[e + eTo] / NF;
    if (et === 'property') props.push(strings[edges[e + eName]]);
    if (et !== 'weak' && indegree[to] === 1 && OWNED.has(typeOf(to))) bytes += nodes[to * NF + iSize];
  }
  const key = `${t === 'closure' ? 'closure ' : ''}${strings[nodes[v * NF + iName]]} {${props
    .filter((p) => p !== '__proto__' && p !== 'map')
    .slice(0, 5)
    .join(',')}}`;
  const s = shapes.get(key) ?? { count: 0, bytes: 0 };
  s.count++;
  s.bytes += bytes;
  shapes.set(key, s);
}
console.log(`heap ${mb(total)} MB, ${N} nodes\n\n     MB    count  shape (self, with what only it points to)`);
for (const [k, s] of [...shapes].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, rows))
  console.log(`${mb(s.bytes)} ${String(s.count).padStart(8)}  ${k.slice(0, 120)}`);

// (2) Dominators (Cooper, Harvey, Kennedy: iterate to a fixed point over reverse postorder from the root).
const order = new Int32Array(N).fill(-1);
const post = new Int32Array(N);
let count = 0;
const cursor = new Uint32Array(N);
const seen = new Uint8Array(N);
const stack = [0];
seen[0] = 1;
cursor[0] = first[0];
while (stack.length > 0) {
  const v = stack[stack.length - 1];
  if (cursor[v] < first[v + 1]) {
    const e = cursor[v];
    cursor[v] += EF;
    const w = edges[e + eTo] / NF;
    if (edges[e + eType] !== WEAK && !seen[w]) {
      seen[w] = 1;
      cursor[w] = first[w];
      stack.push(w);
    }
  } else {
    stack.pop();
    order[v] = count;
    post[count++] = v;
  }
}
const predStart = new Uint32Array(N + 1);
for (let v = 0; v < N; v++)
  if (seen[v]) for (let e = first[v]; e < first[v + 1]; e += EF) if (edges[e + eType] !== WEAK) predStart[edges[e + eTo] / NF + 1]++;
for (let v = 0; v < N; v++) predStart[v + 1] += predStart[v];
const preds = new Uint32Array(predStart[N]);
const fill = predStart.slice(0, N);
for (let v = 0; v < N; v++)
  if (seen[v]) for (let e = first[v]; e < first[v + 1]; e += EF) if (edges[e + eType] !== WEAK) preds[fill[edges[e + eTo] / NF]++] = v;
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
for (let changed = true; changed; ) {
  changed = false;
  for (let k = count - 2; k >= 0; k--) {
    const v = post[k];
    let d = -1;
    for (let p = predStart[v]; p < predStart[v + 1]; p++) {
      let a = preds[p];
      if (idom[a] === -1) continue;
      if (d === -1) {
        d = a;
        continue;
      }
      let b = d;
      while (a !== b) {
        while (order[a] < order[b]) a = idom[a];
        while (order[b] < order[a]) b = idom[b];
      }
      d = a;
    }
    if (d !== -1 && idom[v] !== d) {
      idom[v] = d;
      changed = true;
    }
  }
}
const retained = new Float64Array(N);
for (let v = 0; v < N; v++) retained[v] = nodes[v * NF + iSize];
for (let k = 0; k < count - 1; k++) retained[idom[post[k]]] += retained[post[k]];
const big = [];
for (let v = 1; v < N; v++) if (seen[v] && retained[v] > 2 ** 20 && idom[v] !== v) big.push(v);
big.sort((a, b) => retained[b] - retained[a]);
console.log('\n     MB  retained by (dominator tree), under');
for (const v of big.slice(0, rows)) console.log(`${mb(retained[v])}  ${nameOf(v).padEnd(40)} under ${nameOf(idom[v])}`);
const timers = big.find((v) => nameOf(v) === 'object:Timers');
if (timers !== undefined) {
  let closures = 0;
  let bytes = 0;
  for (let v = 0; v < N; v++) {
    if (typeOf(v) !== 'closure') continue;
    let d = idom[v];
    while (d > 0 && d !== timers) d = idom[d];
    if (d === timers) {
      closures++;
      bytes += retained[v];
    }
  }
  console.log(`\nthe scheduler's timers retain ${mb(retained[timers])} MB: ${closures} task closures holding ${mb(bytes).trim()} MB`);
}
