// The doc tests' reader: blocks with their language, hints and visible markers (also inside list items), and
// the link checker, on small pages written here.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, readMarkdown } from './markdown.ts';
import { ciSteps, localise } from './runner.ts';

function page(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'swapsim-md-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('readMarkdown', () => {
  it('reads language, hints, markers and lines, a block in a list item too', () => {
    const dir = page({
      'a.md': [
        '# A',
        '',
        '```sh serve="--clock virtual" app timeout=90',
        'swapsim trigger x',
        '```',
        '',
        '- a step:',
        '',
        '  ```yaml ci',
        '  - run: npx swapsim wait',
        '  ```',
        '',
        '```sh',
        '# not run in CI: needs k6',
        'k6 run x.js',
        '```',
        '',
        '```ts',
        '// illustrative: a sketch',
        'f();',
        '```',
        '',
        '```',
        'bare',
        '```',
      ].join('\n'),
    });
    const { blocks } = readMarkdown(join(dir, 'a.md'), dir);
    expect(blocks.map((b) => [b.line, b.lang, b.hints, b.skip])).toEqual([
      [3, 'sh', { serve: '--clock virtual', app: '', timeout: '90' }, null],
      [9, 'yaml', { ci: '' }, null],
      [13, 'sh', {}, { kind: 'not run in CI', reason: 'needs k6' }],
      [18, 'ts', {}, { kind: 'illustrative', reason: 'a sketch' }],
      [23, '', {}, null],
    ]);
    expect(blocks[1]!.code).toBe('- run: npx swapsim wait');
  });
});

describe('brokenLinks', () => {
  it('finds a missing file, a path taken from the wrong folder and a missing anchor; resolves good ones', () => {
    const dir = page({
      'README.md': '[ok](docs/b.md#a-heading-with-code) [ok2](docs/) [gone](docs/none.md) [web](https://example.com/x)\n',
      'docs/b.md':
        '# B\n\n## A heading with `code`\n\n[self](#b) [wrong](docs/b.md) [anchor](b.md#retention) [x](../README.md)\n<a id="custom"></a>[c](#custom)\n',
    });
    expect(brokenLinks(join(dir, 'README.md'), dir)).toEqual(['README.md:1 → docs/none.md: no such file docs/none.md']);
    expect(brokenLinks(join(dir, 'docs/b.md'), dir)).toEqual([
      'docs/b.md:5 → docs/b.md: no such file docs/docs/b.md',
      'docs/b.md:5 → b.md#retention: no heading #retention in docs/b.md',
    ]);
  });
});

describe('what a block runs', () => {
  it("moves every local port to a free one, swapsim's 4010 to the server's", async () => {
    const { code, ports } = await localise('curl 127.0.0.1:4010/v1 localhost:3000 && app --port 4020 && x http://127.0.0.1:4020/y', 5555);
    expect(ports.get(4010)).toBe(5555);
    expect(code).toBe(
      `curl 127.0.0.1:5555/v1 localhost:${ports.get(3000)} && app --port ${ports.get(4020)} && x http://127.0.0.1:${ports.get(4020)}/y`,
    );
    expect(new Set(ports.values()).size).toBe(3);
  });

  it("a CI recipe runs its run: steps, the integrator's npm test replaced by a check of the server", () => {
    const steps = ciSteps('- run: npx swapsim serve &\n- uses: actions/upload-artifact@v4\n  with: {}\n- run: npm test   # yours\n').split(
      '\n',
    );
    expect(steps[0]).toBe('npx swapsim serve &');
    expect(steps[1]).toContain('"mode":"virtual"');
    expect(steps).toHaveLength(2);
  });
});
