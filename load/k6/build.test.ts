// `npm run build:load`: every entry script bundles to one self-contained ESM file for real k6, with
// k6's modules the only imports and no syntax newer than ES2017 left (older k6 parsers reject `?.`,
// `??` and class fields), which the sources do use: the check proves esbuild lowered them.
import { beforeAll, describe, expect, test } from 'vitest';
import { transform } from 'esbuild';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
// @ts-expect-error: a plain .mjs build script without declarations
import { buildLoad, loadEntries } from '../../scripts/build-load.mjs';

const ENTRIES = ['firm-rfqs', 'indicative-rfqs', 'lifecycle-mix', 'proxy-conduct', 'reads', 'writes'];

/** Whether esbuild finds anything to lower at es2017: the same text printed for esnext and for es2017. */
async function newerThanEs2017(code: string): Promise<boolean> {
  const esnext = await transform(code, { format: 'esm', target: 'esnext', loader: 'js' });
  const es2017 = await transform(code, { format: 'esm', target: 'es2017', loader: 'js' });
  return esnext.code !== es2017.code;
}

describe('build:load', () => {
  let bundles: string[];
  beforeAll(async () => {
    bundles = await buildLoad(mkdtempSync(join(tmpdir(), 'k6-build-')));
  });

  test('one bundle per entry script', () => {
    expect((loadEntries() as string[]).map((e) => basename(e, '.ts'))).toEqual(ENTRIES);
    expect(bundles.map((b) => basename(b, '.js'))).toEqual(ENTRIES);
  });

  test('the syntax check can fail: optional chaining, ?? and class fields are caught', async () => {
    expect(await newerThanEs2017('export const f = (a) => a?.b ?? 1;')).toBe(true);
    expect(await newerThanEs2017('export class A { x = 1; }')).toBe(true);
    expect(await newerThanEs2017('export const o = { ...{ a: 1 } };')).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the syntax check
    expect(await newerThanEs2017('export async function f(a) { return `${await a}`; }')).toBe(false);
  });

  test('the sources use ?? and optional chaining, so lowering is exercised', () => {
    const sources = ['lib/lifecycle.ts', 'lib/limit-class.ts'].map((f) => readFileSync(join(import.meta.dirname, f), 'utf8')).join('\n');
    expect(sources).toMatch(/\?\?/);
    expect(sources).toMatch(/\w\?\.\w/);
  });

  for (const name of ENTRIES) {
    test(`${name}.js: es2017 syntax only, k6 modules the only imports, the k6 exports present`, async () => {
      const code = readFileSync(bundles.find((b) => basename(b) === `${name}.js`)!, 'utf8');
      expect(await newerThanEs2017(code)).toBe(false);
      const imports = [...code.matchAll(/^\s*import\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
      expect(imports.length).toBeGreaterThan(0);
      for (const i of imports) expect(i).toMatch(/^k6(\/[a-z-]+)?$/);
      expect(code).not.toMatch(/\brequire\(|https?:\/\/jslib/);
      const exported = /export\s*\{([^}]*)\}\s*;?\s*$/
        .exec(code)![1]!
        .split(',')
        .map((s) =>
          s
            .trim()
            .split(/\s+as\s+/)
            .pop(),
        );
      for (const e of ['options', 'setup', 'handleSummary']) expect(exported).toContain(e);
      const scenarios =
        name === 'lifecycle-mix'
          ? ['journey', 'teardown']
          : name === 'proxy-conduct'
            ? ['journey', 'burst', 'replay', 'teardown']
            : ['under', 'at', 'over'];
      for (const e of scenarios) expect(exported).toContain(e);
    });
  }
});
