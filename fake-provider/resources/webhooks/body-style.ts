// The bytes of a delivery body (profile `webhook_body_style`): the compact JSON of the envelope, or the same value
// written with the whitespace and escapes JSON allows, so a receiver that checks the signature over re-serialized
// JSON instead of the raw body fails here rather than in production. The feed (GET /events) stays compact.
import type { WebhookBodyStyle } from '../../profile.ts';

const INDENT = '  ';

/**
 * Restyles compact JSON (as `JSON.stringify` writes it) token by token, never through a parse, so every string's
 * and number's value stays exactly what it was. `spaced`: objects one member a line, indented, `": "`; arrays
 * inline with `", "`; a final newline. `escaped`: every UTF-16 unit past printable ASCII (non-ASCII, and DEL)
 * as `\uXXXX`, and `/` as `\/`: the body is then printable ASCII.
 */
export function styleBody(compact: string, style: WebhookBodyStyle): string {
  if (style === 'compact') return compact;
  const spaced = style === 'spaced' || style === 'mixed';
  const escaped = style === 'escaped' || style === 'mixed';
  let out = '';
  let in_string = false;
  /** Open containers, innermost last: true for an object (laid out a member a line). */
  const objects: boolean[] = [];
  const newline = (): string => `\n${INDENT.repeat(objects.length)}`;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i];
    if (in_string) {
      if (c === '\\') {
        // An escape JSON.stringify wrote (\" \\ \n \u0001 …): copied as is; its tail is ASCII with no `/`.
        out += c + compact[++i];
      } else if (c === '"') {
        in_string = false;
        out += c;
      } else if (escaped && c === '/') out += '\\/';
      else if (escaped && c.charCodeAt(0) > 0x7e) out += `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      else out += c;
      continue;
    }
    if (c === '"') {
      in_string = true;
      out += c;
    } else if (!spaced) out += c;
    else if (c === '{' || c === '[') {
      const empty = compact[i + 1] === (c === '{' ? '}' : ']');
      objects.push(c === '{');
      out += empty ? c : c === '{' ? c + newline() : c;
    } else if (c === '}' || c === ']') {
      const is_object = objects.pop();
      const empty = compact[i - 1] === (c === '}' ? '{' : '[');
      out += !empty && is_object ? newline() + c : c;
    } else if (c === ',') out += objects[objects.length - 1] ? `,${newline()}` : ', ';
    else if (c === ':') out += ': ';
    else out += c;
  }
  return spaced ? `${out}\n` : out;
}
