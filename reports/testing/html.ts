// Test helpers for report pages: load a recorded fixture, and pick rows/sections out of generated HTML
// (string-level on purpose: the page is ours and simple; the browser test checks the rendering).
import { readFileSync } from 'node:fs';

export const fixture = <T = any>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));

/** Every `<tr>` of the page whose text contains `text`. */
export const rowsWith = (html: string, text: string): string[] =>
  [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]).filter((r) => r.includes(text));

/** The `<section id=…>` with that id, up to the next top-level section. */
export function sectionById(html: string, id: string): string {
  const start = html.indexOf(`<section id="${id}"`);
  if (start < 0) throw new Error(`no section ${id}`);
  const next = html.indexOf('<section id="', start + 10);
  return html.slice(start, next < 0 ? undefined : next);
}

export const count = (html: string, re: RegExp): number =>
  (html.match(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)) ?? []).length;

/** No live content and no fetch: no script/iframe/object tag, no event handler, no src/href except in-page anchors.
 *  Checked on the tags only: escaped input text (`&lt;img onerror=…`) is inert and may stay readable. */
export function assertInert(html: string): void {
  const tags = html.match(/<[a-zA-Z!/][^>]*>/g) ?? [];
  const bad = [
    /^<(script|iframe|object|embed|link|img|base|form|meta http-equiv="refresh")/i,
    /\son[a-z]+\s*=/i,
    /javascript:/i,
    /\ssrc\s*=/i,
    /\s(?:xlink:)?href\s*=\s*"(?!#)/i,
    /url\((?!#)/i,
  ];
  for (const tag of tags) for (const re of bad) if (re.test(tag)) throw new Error(`report HTML has an active tag ${tag.slice(0, 200)}`);
  if (/@import|url\(/i.test(html.slice(html.indexOf('<style>'), html.indexOf('</style>')))) throw new Error('report CSS fetches');
}
