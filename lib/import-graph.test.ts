// The import graph of every source file stays without cycles (type-only and dynamic imports count: a type cycle
// is still two modules that cannot be read one without the other), a resource's production files reach another
// resource only through its index.ts, and what the package bundles loads no test support. dpdm parses the graph (with its own TypeScript 5: madge and dependency-cruiser
// need the compiler's JS API, which TypeScript 7 no longer ships); the rules are plain checks over its edges.
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The folders whose .ts files make up the project (not node_modules, dist or generated reports). */
const SOURCE_DIRS = ['fake-provider', 'sim', 'scenarios', 'cli', 'lib', 'load', 'reports', 'scripts'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out']);

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...tsFiles(join(dir, entry.name)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(join(dir, entry.name));
  }
  return out;
}

/** The graph over `files`, paths relative to `context`; type-only and dynamic imports are edges too. */
async function graphOf(files: string[], context: string): Promise<DependencyTree> {
  return parseDependencyTree(files, { context, cwd: context, transform: false, skipDynamicImports: false });
}

const edges = (tree: DependencyTree): Array<[string, string]> =>
  Object.entries(tree).flatMap(([issuer, deps]) =>
    (deps ?? []).flatMap((d) => (d.id === null ? [] : [[issuer, d.id] as [string, string]])),
  );

/** `fake-provider/resources/<name>/<file>` → [name, file], else null. */
function resourceFile(path: string): [string, string] | null {
  const m = /^fake-provider\/resources\/([^/]+)\/(.+)$/.exec(path.split('\\').join('/'));
  return m ? [m[1], m[2]] : null;
}

/** Test support: tests are white-box and fixtures serve them, so they may read another resource's files. */
const isTestSupport = (file: string): boolean => file.endsWith('.test.ts') || file.split('/').pop() === 'fixtures.ts';

/** Test support anywhere: test files, fixtures, and the harness folder fake-provider/testing/. */
const isTestOnly = (file: string): boolean => isTestSupport(file) || file.startsWith('fake-provider/testing/');

/** Every module `entries` load, statically or dynamically, with the chain that reaches each test-only one. */
function testOnlyReached(tree: DependencyTree, entries: string[]): string[] {
  const via = new Map<string, string>(entries.map((e) => [e, e]));
  const queue = [...entries];
  const found: string[] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const d of tree[file] ?? []) {
      if (d.id === null || via.has(d.id) || !(d.id in tree)) continue;
      via.set(d.id, `${via.get(file)} -> ${d.id}`);
      if (isTestOnly(d.id)) found.push(via.get(d.id)!);
      queue.push(d.id);
    }
  }
  return found;
}

/** Imports from one resource's folder into another's, past its index.ts (from production files). */
function reachesPastIndex(tree: DependencyTree): string[] {
  const found: string[] = [];
  for (const [issuer, id] of edges(tree)) {
    const from = resourceFile(issuer);
    if (from && isTestSupport(from[1])) continue;
    const to = resourceFile(id);
    if (from && to && from[0] !== to[0] && to[1] !== 'index.ts') found.push(`${issuer} -> ${id}`);
  }
  return found;
}

/**
 * The floors of the house, lowest first: a production module imports only from its own floor or lower ones
 * (test support aside). `engine` holds the world it stores into (world.ts, the profile it reads, the network
 * facts it names, the failure-code registry the profile's statuses come from); `resources` holds what the spec's resources share (the route contract, the error catalog);
 * `planes` serve /v1 and observe it (the pipeline, conduct, the oracle); `app` assembles a runtime of worlds
 * and organizations, its control plane and dashboard, journals and state; the top drives a server from outside
 * (fake-provider/testing/ included: a test's harness is a client).
 */
const FLOORS: ReadonlyArray<{ floor: string; holds: RegExp }> = [
  { floor: 'sim', holds: /^sim\// },
  { floor: 'engine', holds: /^fake-provider\/(engine\/|profiles\/|(world|profile|network|failure-codes)\.ts$)/ },
  { floor: 'resources', holds: /^fake-provider\/(resources\/|contract\/|(resource|resource-records|emails|retention)\.ts$)/ },
  { floor: 'planes', holds: /^fake-provider\/(http|conduct|oracle)\// },
  {
    floor: 'app',
    holds:
      /^fake-provider\/(control|ui|replay|persistence|seed)\/|^fake-provider\/(app|server|runtime|worlds|server-wide|organizations)\.ts$/,
  },
  { floor: 'top', holds: /^(scenarios|cli|lib|load|reports|scripts|dashboard|fake-provider\/testing)\/|^index\.ts$/ },
];

/** Upward imports still being removed, each kind named by a pattern; the list only shrinks (empty: none). */
const PENDING_FLOORS: readonly RegExp[] = [];

const floorOf = (file: string): number => FLOORS.findIndex((f) => f.holds.test(file.split('\\').join('/')));

/** Imports from a production module to a module on a higher floor (or a module on no floor at all). */
function upwardImports(tree: DependencyTree): string[] {
  const found: string[] = [];
  for (const [issuer, id] of edges(tree)) {
    if (isTestOnly(issuer) || !id.endsWith('.ts') || id.includes('node_modules')) continue;
    const from = floorOf(issuer);
    const to = floorOf(id);
    if (from < 0 || to < 0 || to > from)
      found.push(`${issuer} (${FLOORS[from]?.floor ?? 'no floor'}) -> ${id} (${FLOORS[to]?.floor ?? 'no floor'})`);
  }
  return [...new Set(found)].sort();
}

describe('import graph', () => {
  let tree: DependencyTree | undefined;
  const projectGraph = async (): Promise<DependencyTree> => {
    tree ??= await graphOf([join(ROOT, 'index.ts'), ...SOURCE_DIRS.flatMap((d) => tsFiles(join(ROOT, d)))], ROOT);
    return tree;
  };

  it('has no cycle among the project’s modules', async () => {
    const t = await projectGraph();
    expect(Object.keys(t).length).toBeGreaterThan(300);
    const cycles = parseCircular(t).map((c) => c.join(' -> '));
    expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([]);
  });

  it('a resource reaches another resource only through its index.ts', async () => {
    expect(reachesPastIndex(await projectGraph())).toEqual([]);
  });

  it('no production module imports from a higher floor (sim → engine → resources → planes → app → top)', async () => {
    const upward = upwardImports(await projectGraph());
    const unplanned = upward.filter((edge) => !PENDING_FLOORS.some((p) => p.test(edge)));
    expect(unplanned, `imports from a higher floor:\n${unplanned.join('\n')}`).toEqual([]);
    // Each pending kind still occurs: one fixed is taken off the list, so it cannot come back unnoticed.
    const stale = PENDING_FLOORS.filter((p) => !upward.some((edge) => p.test(edge))).map(String);
    expect(stale, 'pending floor violations that no longer occur: remove them from PENDING_FLOORS').toEqual([]);
  });

  it('the package (index.ts, cli/main.ts: what lib/build.mjs bundles) loads no test support', async () => {
    expect(testOnlyReached(await projectGraph(), ['index.ts', 'cli/main.ts'])).toEqual([]);
  });

  it('the checks see a cycle of type-only imports, one through a dynamic import, a reach past index.ts, a shipped test', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
    const write = (path: string, text: string): string => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
      return join(dir, path);
    };
    const files = [
      write('world.ts', "import type { Store } from './store.ts';\nexport interface World { store: Store }\n"),
      write('store.ts', "import type { World } from './world.ts';\nexport interface Store { world?: World }\n"),
      write('registry.ts', "import { route } from './route.ts';\nexport const ALL = [route];\n"),
      write('route.ts', "export const route = async () => (await import('./registry.ts')).ALL.length;\n"),
      write('fake-provider/resources/a/model.ts', "import { b } from '../b/model.ts';\nexport const a = b;\n"),
      write('fake-provider/resources/b/model.ts', 'export const b = 1;\n'),
      write('fake-provider/resources/b/index.ts', "export { b } from './model.ts';\n"),
      write('fake-provider/resources/a/a.test.ts', "import { b } from '../b/model.ts';\nexport const t = b;\n"),
    ];
    const t = await graphOf(files, dir);
    const cycles = parseCircular(t).map((c) =>
      c
        .map((p) => relative(dir, resolve(dir, p)))
        .sort()
        .join(' '),
    );
    expect(cycles.sort()).toEqual(['registry.ts route.ts', 'store.ts world.ts']);
    expect(reachesPastIndex(t)).toEqual(['fake-provider/resources/a/model.ts -> fake-provider/resources/b/model.ts']);
    const floors = await graphOf(
      [
        write('sim/clock.ts', "import type { World } from '../fake-provider/world.ts';\nexport type T = World;\n"),
        write('fake-provider/world.ts', 'export interface World { n: number }\n'),
      ],
      dir,
    );
    expect(upwardImports(floors)).toEqual(['sim/clock.ts (sim) -> fake-provider/world.ts (engine)']);
    const shipped = await graphOf(
      [
        write('main.ts', "export const run = () => import('./lib.ts');\n"),
        write('lib.ts', "export { t } from './fake-provider/resources/a/a.test.ts';\n"),
      ],
      dir,
    );
    expect(testOnlyReached(shipped, ['main.ts'])).toEqual(['main.ts -> lib.ts -> fake-provider/resources/a/a.test.ts']);
  });
});
