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

/**
 * `part`: this file runs every `of`-th runnable block from the `index`-th (and the link checks when `index` is 0),
 * so the blocks of one page can run in several vitest workers: they mostly wait on the processes they start.
 */
export function docTests(files: string[], part: { index: number; of: number } = { index: 0, of: 1 }): void {
  let project = '';
  beforeAll(() => {
    project = scratchProject();
  });
  afterAll(() => cleanup(project));
  let n = 0;
  let runnable = 0;
  for (const path of files) {
    // This part's blocks of the page (numbered over every page, for their scratch folders).
    const mine: Array<{ block: Block; i: number }> = [];
    for (const block of readMarkdown(path, ROOT).blocks) {
      const i = n++;
      if (block.lang === 'text') continue; // output, a synopsis, a layout: shown, never run
      if (runnable++ % part.of === part.index) mine.push({ block, i });
    }
    if (part.index !== 0 && mine.length === 0) continue;
    describe(relative(ROOT, path), () => {
      if (part.index === 0) {
        it('every relative link and anchor resolves', () => {
          expect(brokenLinks(path, ROOT)).toEqual([]);
        });
      }
      for (const { block, i } of mine) {
        if (block.skip) {
          it.skip(title(block), () => undefined);
          continue;
        }
        it(
          title(block),
          async () => {
            if (!(LANGUAGES as readonly string[]).includes(block.lang)) {
              throw new Error(
                `${block.file}:${block.line}: a block needs a language (${LANGUAGES.join(', ')}), got ${JSON.stringify(block.lang)}; text for output and synopses`,
              );
            }
            if (block.lang === 'yaml' && block.hints.ci === undefined)
              throw new Error(`${block.file}:${block.line}: a yaml block is a CI recipe (hint ci) or marked illustrative`);
            if (block.skip === null && block.lang === 'sh' && /^\s*$/.test(block.code)) throw new Error('an empty block');
            const outcome = await runBlock(block, project, i);
            if (outcome.code !== 0 || outcome.timedOut) throw new Error(describeFailure(block, outcome));
          },
          (Number(block.hints.timeout ?? 60) + 30) * 1000,
        );
      }
    });
  }
}
