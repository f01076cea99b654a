// The doc tests of some Markdown files, as vitest tests: one test per fenced block (run, or skipped with the
// reason the page shows), and one per file for its relative links and anchors.
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenLinks, LANGUAGES, readMarkdown, type Block } from './markdown.ts';
import { cleanup, describeFailure, ROOT, runBlock, scratchProject } from './runner.ts';

function title(block: Block): string {
  const first = block.code.split('\n')[0]!.slice(0, 60);
  const why = block.skip ? ` (skipped: ${block.skip.kind}: ${block.skip.reason})` : '';
  return `${block.file}:${block.line} ${block.lang} ${first}${why}`;
}

export function docTests(files: string[]): void {
  let project = '';
  beforeAll(() => {
    project = scratchProject();
  });
  afterAll(() => cleanup(project));
  let n = 0;
  for (const path of files) {
    const { blocks } = readMarkdown(path, ROOT);
    describe(relative(ROOT, path), () => {
      it('every relative link and anchor resolves', () => {
        expect(brokenLinks(path, ROOT)).toEqual([]);
      });
      for (const block of blocks) {
        const i = n++;
        if (block.lang === 'text') continue; // output, a synopsis, a layout: shown, never run
        if (block.skip) {
          it.skip(title(block), () => undefined);
          continue;
        }
        it(title(block), async () => {
          if (!(LANGUAGES as readonly string[]).includes(block.lang)) {
            throw new Error(`${block.file}:${block.line}: a block needs a language (${LANGUAGES.join(', ')}), got ${JSON.stringify(block.lang)}; text for output and synopses`);
          }
          if (block.lang === 'yaml' && block.hints.ci === undefined) throw new Error(`${block.file}:${block.line}: a yaml block is a CI recipe (hint ci) or marked illustrative`);
          if (block.skip === null && block.lang === 'sh' && /^\s*$/.test(block.code)) throw new Error('an empty block');
          const outcome = await runBlock(block, project, i);
          if (outcome.code !== 0 || outcome.timedOut) throw new Error(describeFailure(block, outcome));
        }, (Number(block.hints.timeout ?? 60) + 30) * 1000);
      }
    });
  }
}
