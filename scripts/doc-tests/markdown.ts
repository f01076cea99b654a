// What the doc tests read from README.md and docs/*.md: every fenced block with its language, runner hints and
// visible marker, every relative link, and every anchor a link may point at. Parsed with marked (a Markdown
// lexer), never with regular expressions over the text, so a block inside a list item counts as one too.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** Languages a block may carry; `text` is output, a synopsis or a layout, never run. */
export const LANGUAGES = ['sh', 'ts', 'yaml', 'json', 'text'] as const;

export interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** Runner hints after the language, e.g. `serve`, `serve="--clock virtual"`, `repo`, `timeout=120`, `vitest`. */
  hints: Record<string, string>;
  code: string;
  /**
   * The block's first line when it says the block is not run, visibly, in the page itself:
   * `# illustrative: REASON` (placeholders, a sketch) or `# not run in CI: REASON` (needs what CI lacks).
   */
  skip: { kind: 'illustrative' | 'not run in CI'; reason: string } | null;
}

export interface Link {
  file: string;
  line: number;
  href: string;
}

const MARKER = /^\s*(?:#|\/\/)\s*(illustrative|not run in CI):\s*(.*?)\s*$/;

/** `serve="--clock virtual" repo timeout=120` → { serve: '--clock virtual', repo: '', timeout: '120' }. */
function parseHints(info: string): Record<string, string> {
  const hints: Record<string, string> = {};
  for (const m of info.matchAll(/([a-z][a-z-]*)(?:=(?:"([^"]*)"|(\S+)))?/g)) hints[m[1]] = m[2] ?? m[3] ?? '';
  return hints;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The blocks and relative links of one Markdown file (path relative to `root` in the results). */
export function readMarkdown(path: string, root: string): { blocks: Block[]; links: Link[] } {
  const text = readFileSync(path, 'utf8');
  const file = relative(root, path);
  const blocks: Block[] = [];
  const links: Link[] = [];
  let from = 0;
  marked.walkTokens(marked.lexer(text), (token: Token) => {
    if (token.type === 'code') {
      const code = token as Tokens.Code;
      // A block inside a list item keeps its indentation in the file but not in `raw`: find its fence line.
      let at = text.indexOf(code.raw, from);
      if (at < 0) at = text.indexOf(code.raw.split('\n')[0]!.trim(), from);
      if (at >= 0) from = at + code.raw.length;
      if (code.codeBlockStyle === 'indented') return;
      const [lang = '', ...rest] = (code.lang ?? '').trim().split(/\s+/);
      const first = code.text.split('\n')[0] ?? '';
      const m = MARKER.exec(first);
      blocks.push({
        file,
        line: lineAt(text, Math.max(at, 0)),
        lang,
        hints: parseHints(rest.join(' ')),
        code: code.text,
        skip: m ? { kind: m[1] as 'illustrative' | 'not run in CI', reason: m[2] } : null,
      });
    } else if (token.type === 'link' || token.type === 'image') {
      const href = (token as Tokens.Link).href;
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return; // https:, mailto: …: not ours to check
      const at = text.indexOf(`](${href}`, from);
      links.push({ file, line: lineAt(text, at >= 0 ? at : from), href });
    }
  });
  return { blocks, links };
}

/** Every anchor a link may name in a Markdown file: GitHub's heading slugs, and `<a id|name="…">`. */
function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8');
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  marked.walkTokens(marked.lexer(text), (token: Token) => {
    if (token.type === 'heading') anchors.add(slugger.slug(plain((token as Tokens.Heading).tokens)));
  });
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** A heading's text as GitHub slugs it: inline code, emphasis and links reduced to their text. */
function plain(tokens: Token[]): string {
  return tokens.map((t) => ('tokens' in t && t.tokens ? plain(t.tokens) : 'text' in t ? String(t.text) : '')).join('');
}

/** Every relative link of a file resolves to a file or folder, and its #anchor to a heading there. */
export function brokenLinks(path: string, root: string): string[] {
  const broken: string[] = [];
  const { links } = readMarkdown(path, root);
  for (const link of links) {
    const [target, anchor] = link.href.split('#') as [string, string | undefined];
    const resolved = target === '' ? path : join(dirname(path), decodeURIComponent(target));
    const where = `${link.file}:${link.line} → ${link.href}`;
    if (!existsSync(resolved)) {
      broken.push(`${where}: no such file ${relative(root, resolved)}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
    if (!anchorsOf(resolved).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${relative(root, resolved)}`);
  }
  return broken;
}
