// The determinism gate: the engine reads time and randomness only from sim/. Any wall-clock read, ambient
// randomness or timer in fake-provider/ or scenarios/ (tests and examples aside) fails this test.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const FORBIDDEN = /Date\.now\(|new Date\(\)|Math\.random\(|crypto\.randomUUID\(|randomUUID\(|setTimeout\(|setInterval\(|performance\.now\(/;

function files(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'examples') continue;
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (/\.(ts|js|mjs)$/.test(name) && !/\.test\.ts$/.test(name)) out.push(p);
  }
  return out;
}

describe('no ambient time or randomness outside sim/', () => {
  it('finds none in fake-provider/ and scenarios/', () => {
    const hits: string[] = [];
    for (const dir of ['fake-provider', 'scenarios']) {
      for (const file of files(join(ROOT, dir))) {
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (FORBIDDEN.test(line)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(hits).toEqual([]);
  });

  it('the gate itself trips on a forbidden call', () => {
    expect(FORBIDDEN.test('const t = Date.now();')).toBe(true);
    expect(FORBIDDEN.test('world.sim.now_ms()')).toBe(false);
  });
});
