// The engine gate: resources read like the spec and reach the engine only through its door. Under
// resources/, an import of any engine module but engine/index.ts fails (tests included), and in the
// source files so do typed-array storage, bit tricks and comments about V8 or allocation: those belong
// behind engine/index.ts. Uint8Array is allowed: keys, hashes and address encodings are bytes by their
// own specs, not a storage layout. A format defined on bits (EIP-55's checksum nibbles) is listed below
// with its reason. Scheduled work is data (a kind and plain arguments, engine/tasks.ts) so a world can be
// copied: a call on the clock (`scheduleCall`, `afterCall`) only where it waits on outside work, listed too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;
const RESOURCES = new URL('.', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;

/** Any engine module but the door, however many `../` lead to it. */
const ENGINE_INTERNAL = /from\s+['"](?:\.\.\/)+engine\/(?!index\.ts['"])[^'"]+['"]|import\(\s*['"](?:\.\.\/)+engine\/(?!index\.ts['"])/;
const TYPED_ARRAY =
  /\b(?:Int8|Uint8Clamped|Int16|Uint16|Int32|Uint32|Float32|Float64|BigInt64|BigUint64)Array\b|\b(?:Shared)?ArrayBuffer\b|\bDataView\b/;
const BIT_TRICK = />>>?=?\s*[\w$]|<<=?\s*[\w$]|Math\.(?:imul|clz32|fround)\b|\|\s*0(?![.\dxXbBoO])\b|&\s*0x[\da-fA-F]+|~~/;
const ENGINE_TALK =
  /\bV8\b|TurboFan|hidden class|ConsString|cons cell|\brope\b|megamorphic|monomorphic|inline cache|\bdeopt|young (?:generation|collection)|old space|\bGC\b|\ballocation\b|Map entry|property array|boxed|\bclosures?\b|flat (?:latin1 )?string|hashed once|flatten/i;

const SCHEDULED_CALL = /\.(?:scheduleCall|afterCall)\s*\(/;

/** Files allowed a call on the clock, with why: it waits on outside work, which no copy of a world takes along. */
const CALLS_FOR_OUTSIDE_WORK: Record<string, string> = {
  'webhooks/model.ts': "the answer slot's task waits on a receiver's answer in flight (a snapshot refuses meanwhile)",
};

/** Files allowed a bit operation, with why: the format itself is defined on bits. */
const BITS_BY_SPEC: Record<string, string> = {
  'assets/addresses.ts': "EIP-55's checksum reads the address hash nibble by nibble",
};

function files(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/**
 * The source split into code (strings blanked) and comments, line by line. A small scanner for this
 * codebase's TypeScript: line and block comments, quotes, templates (their `${}` scanned as code) and
 * regex literals after an operator or keyword.
 */
function split(source: string): { code: string[]; comments: string[] } {
  let code = '';
  let comments = '';
  const emit = (c: string, into: 'code' | 'comment' | 'blank'): void => {
    const nl = c === '\n';
    code += into === 'code' || nl ? c : ' ';
    comments += into === 'comment' || nl ? c : ' ';
  };
  /** An escape at `i` and the character it escapes, blanked; returns the index of the latter. */
  const blankEscape = (i: number): number => {
    emit(source[i], 'blank');
    emit(source[i + 1] ?? '', 'blank');
    return i + 1;
  };
  const templates: number[] = []; // brace depth at each open `${`
  let depth = 0;
  let last = ''; // last significant code character (regex or division?)
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      for (; i < source.length && source[i] !== '\n'; i++) emit(source[i], 'comment');
      if (i < source.length) emit('\n', 'code');
      continue;
    }
    if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : end + 2;
      for (; i < stop; i++) emit(source[i], 'comment');
      i--;
      continue;
    }
    if (
      c === "'" ||
      c === '"' ||
      (c === '/' && (last === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(last) || /\b(?:return|typeof|case)\s*$/.test(code)))
    ) {
      emit(c, 'code');
      let inClass = false;
      for (i++; i < source.length; i++) {
        const d = source[i];
        if (d === '\\') {
          i = blankEscape(i);
          continue;
        }
        if (c === '/' && d === '[') inClass = true;
        if (c === '/' && d === ']') inClass = false;
        if ((d === c && !inClass) || d === '\n') break;
        emit(d, 'blank');
      }
      if (i < source.length) emit(source[i], 'code');
      last = c;
      continue;
    }
    if (c === '`' || (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth)) {
      if (c === '}') templates.pop();
      emit(c, 'code');
      for (i++; i < source.length; i++) {
        const d = source[i];
        if (d === '\\') {
          i = blankEscape(i);
          continue;
        }
        if (d === '`') break;
        if (d === '$' && source[i + 1] === '{') {
          emit(d, 'code');
          emit('{', 'code');
          i++;
          templates.push(depth);
          break;
        }
        emit(d, d === '\n' ? 'code' : 'blank');
      }
      if (source[i] === '`') emit('`', 'code');
      last = '`';
      continue;
    }
    if (c === '{') depth++;
    if (c === '}') depth--;
    emit(c, 'code');
    if (!/\s/.test(c)) last = c;
  }
  return { code: code.split('\n'), comments: comments.split('\n') };
}

/** Every line of `files` breaking a rule, as `path:line: rule: text`. */
function violations(sources: Array<{ path: string; text: string }>): string[] {
  const out: string[] = [];
  for (const { path, text } of sources) {
    const isTest = path.endsWith('.test.ts');
    const { code, comments } = split(text);
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      const at = `${path}:${i + 1}`;
      if (ENGINE_INTERNAL.test(line)) out.push(`${at}: engine internals (import engine/index.ts): ${line.trim()}`);
      if (isTest) return;
      if (TYPED_ARRAY.test(code[i])) out.push(`${at}: typed array: ${line.trim()}`);
      if (BIT_TRICK.test(code[i]) && !(path in BITS_BY_SPEC)) out.push(`${at}: bit trick: ${line.trim()}`);
      if (SCHEDULED_CALL.test(code[i]) && !(path in CALLS_FOR_OUTSIDE_WORK))
        out.push(`${at}: a call on the clock (schedule data): ${line.trim()}`);
      if (ENGINE_TALK.test(comments[i])) out.push(`${at}: V8/allocation comment: ${line.trim()}`);
    });
  }
  return out;
}

describe('the engine gate over resources/', () => {
  it('finds no engine internals, typed-array storage, bit tricks or V8 comments', () => {
    // This file aside: it holds the violations it plants.
    const sources = files(RESOURCES)
      .filter((p) => p !== SELF)
      .map((p) => ({ path: relative(RESOURCES, p), text: readFileSync(p, 'utf8') }));
    expect(sources.length).toBeGreaterThan(100);
    expect(violations(sources)).toEqual([]);
  });

  it('trips on each kind of violation, and not on look-alikes', () => {
    const planted = [
      "import { IdIndex } from '../../engine/id-index.ts';",
      "const m = await import('../../engine/packing.ts');",
      'const table = new Int32Array(2048);',
      'const mid = (lo + hi) >>> 1;',
      'const half = n >> 1;',
      'let h = Math.imul(h ^ c, 0x01000193) | 0;',
      '// A fresh object, not a spread: V8 may give its copies a hidden class each.',
      '/* keeps no Map entry per credit */',
      '// a loop, not find with a closure: this runs for every event',
      "world.sim.scheduler.afterCall(0, 'zap.expire', () => expire(world, z));",
    ];
    const hits = violations(planted.map((text, i) => ({ path: `x/planted-${i}.ts`, text })));
    expect(hits.map((h) => h.split(':')[0])).toEqual(planted.map((_, i) => `x/planted-${i}.ts`));
    const fine = [
      "import { EntityTable, publish } from '../../engine/index.ts';",
      'const bytes = new Uint8Array(32);',
      "const s = 'not a >>> trick, nor V8 in a string';",
      'const re = /^0x[0-9a-f]{40}$/;',
      'type Page = Map<string, Array<Set<number>>>;',
      'const m = new Map<string, Set<number>>();',
      '// a credit id allocated ahead of its credit',
      '// the quote holds its expiry and its trade',
      "world.sim.scheduler.after(0, 'zap.expire', { zap_id });",
      "const s = 'scheduleCall( in a string';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a planted source line, as text
      'const t = `${a}.${b}`; // a label',
    ];
    expect(violations(fine.map((text, i) => ({ path: `x/fine-${i}.ts`, text })))).toEqual([]);
    // Tests may read bytes and talk about the engine; they still import the door only.
    expect(violations([{ path: 'x/a.test.ts', text: 'new Int32Array(1); // V8' }])).toEqual([]);
    expect(violations([{ path: 'x/a.test.ts', text: "import { send } from '../../engine/lifecycle.ts';" }])).toHaveLength(1);
  });

  it('knows which engine file is the door', () => {
    expect(readFileSync(join(ROOT, 'engine/index.ts'), 'utf8')).toMatch(/one door/);
  });
});
