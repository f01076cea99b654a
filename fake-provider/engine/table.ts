// A transition table derived once from each xstate machine's own definition (state × event → guarded
// candidates with target and actions; `tableFor` keeps one per machine), executed on the hot path instead of
// xstate's interpreter. Guards, assign and emit run through the machine's implementations; a machine using
// anything the table cannot express (nesting, eventless or delayed transitions, state entry/exit, custom
// actions…) gets null here. Each state also gets a slot number, for per-world caches keyed by state.
import type { AnyStateMachine, EventObject } from 'xstate';

/** What an entity keeps of its machine: the state, the context and whether a final state was reached. */
export interface EntitySnapshot<C = unknown> {
  readonly value: string;
  readonly context: C;
  readonly status: 'active' | 'done';
  /** Only for a machine the table cannot run: xstate's own snapshot, stepped by xstate. */
  readonly machine_snapshot?: unknown;
}

type Args = { context: Record<string, unknown>; event: EventObject };
type Guard = (args: Args, params: unknown) => boolean;
type ParamsOf = (args: Args) => unknown;

interface CompiledAction {
  kind: 'assign' | 'emit';
  /** assign: the assignment (function or per-key map); emit: the event or its expression. */
  body: unknown;
  /** A per-key assign's keys, in order (null otherwise). */
  keys: string[] | null;
  /** A per-key assign's values in the keys' order: an assigner function, or the value itself. */
  values: unknown[] | null;
  /** Whether each of `values` is an assigner (called) rather than a value (stored). */
  calls: boolean[] | null;
  params: unknown;
  dynamicParams: ParamsOf | null;
}

export interface Candidate {
  guard: Guard | null;
  guardParams: unknown;
  guardDynamicParams: ParamsOf | null;
  /** The state after the transition (the source state for a targetless one). */
  target: string;
  actions: CompiledAction[];
  /** xstate's `can()`: a candidate with neither target nor actions is a refusal. */
  accepts: boolean;
  /** How many actions emit: the step's effects, exactly (actions run unconditionally). */
  emits: number;
  final: boolean;
  /** `kind|from|event|to`, the transition log's interning key. */
  key: string;
  /**
   * The target state's slot: a small number for (table, state), unique in the process. Per-world caches
   * keyed by machine and state (shared snapshots) index an array by it instead of looking both up in maps.
   */
  targetSlot: number;
}

export interface Table {
  initial: string;
  initialFinal: boolean;
  context: unknown;
  entry: CompiledAction[];
  /** How many entry actions emit. */
  entryEmits: number;
  /** state → event type → candidates in document order. */
  states: Map<string, Map<string, Candidate[]>>;
  createKey: string;
  /** The initial state's slot. */
  initialSlot: number;
}

/** Slots handed out so far: each machine's table is compiled once, so this grows with the machines only. */
let slotsTaken = 0;

// Per-machine tables are derived from static machine definitions (memos, not world state).
const tables = new WeakMap<AnyStateMachine, Table | null>();

/** The machine's table, or null when it must run through xstate (`compileTable` says which features). */
export function tableFor(machine: AnyStateMachine): Table | null {
  let table = tables.get(machine);
  if (table === undefined) {
    table = compileTable(machine);
    tables.set(machine, table);
  }
  return table;
}

type ActionItem = string | ((...a: unknown[]) => unknown) | { type: string; params?: unknown };
type BuiltIn = { type?: string; assignment?: unknown; event?: unknown; resolve?: unknown };

class Unsupported extends Error {}

function compileAction(machine: AnyStateMachine, item: ActionItem): CompiledAction {
  const impls = machine.implementations.actions as Record<string, unknown>;
  const impl = (typeof item === 'function' ? item : impls[typeof item === 'string' ? item : item.type]) as BuiltIn | undefined;
  const raw = typeof item === 'object' && item !== null && 'params' in item ? item.params : undefined;
  const dynamicParams = typeof raw === 'function' ? (raw as ParamsOf) : null;
  const params = dynamicParams ? undefined : raw;
  if (impl && impl.type === 'xstate.assign') {
    const body = impl.assignment;
    const keys = typeof body === 'function' || body === null || typeof body !== 'object' ? null : Object.keys(body);
    // Read once here: on the hot path a lookup per key by a varying name would be a megamorphic load.
    const values = keys === null ? null : keys.map((k) => (body as Record<string, unknown>)[k]);
    return {
      kind: 'assign',
      body,
      keys,
      values,
      calls: values === null ? null : values.map((v) => typeof v === 'function'),
      params,
      dynamicParams,
    };
  }
  if (impl && impl.type === 'xstate.emit')
    return { kind: 'emit', body: impl.event, keys: null, values: null, calls: null, params, dynamicParams };
  throw new Unsupported(`action ${typeof item === 'string' ? item : typeof item === 'function' ? item.name : item.type}`);
}

function compileGuard(machine: AnyStateMachine, guard: unknown): Pick<Candidate, 'guard' | 'guardParams' | 'guardDynamicParams'> {
  if (guard === undefined) return { guard: null, guardParams: undefined, guardDynamicParams: null };
  const impls = machine.implementations.guards as Record<string, unknown>;
  const g = guard as string | Guard | { type: string; params?: unknown };
  const resolved = typeof g === 'function' ? g : impls[typeof g === 'string' ? g : g.type];
  // Built-in combinators (and, or, not, stateIn) carry `check`; plain functions are all the table runs.
  if (typeof resolved !== 'function' || 'check' in resolved) throw new Unsupported('guard');
  const raw = typeof g === 'object' && 'params' in g ? g.params : undefined;
  return {
    guard: resolved as Guard,
    guardParams: typeof raw === 'function' ? undefined : raw,
    guardDynamicParams: typeof raw === 'function' ? (raw as ParamsOf) : null,
  };
}

interface XNode {
  key: string;
  type: string;
  states: Record<string, XNode>;
  entry: unknown[];
  exit: unknown[];
  always?: unknown[];
  after: unknown[];
  invoke: unknown[];
  transitions: Map<string, Array<{ eventType: string; guard?: unknown; target?: XNode[]; actions: ActionItem[]; reenter: boolean }>>;
  initial?: { target: XNode[] };
}

/** The machine's table, or null when it uses a feature the table does not express. */
export function compileTable(machine: AnyStateMachine): Table | null {
  try {
    return compile(machine);
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

function compile(machine: AnyStateMachine): Table {
  const root = machine.root as unknown as XNode;
  const config = machine.config as { context?: unknown; output?: unknown };
  if (
    root.type !== 'compound' ||
    root.exit.length ||
    root.transitions.size ||
    root.always?.length ||
    root.invoke.length ||
    config.output !== undefined
  ) {
    throw new Unsupported('root');
  }
  const states = new Map<string, Map<string, Candidate[]>>();
  const finals = new Set<string>();
  const base = slotsTaken;
  const slotOf = new Map(Object.keys(root.states).map((key, i) => [key, base + i]));
  slotsTaken += slotOf.size;
  for (const [key, node] of Object.entries(root.states)) {
    if (node.type === 'final') finals.add(key);
    else if (node.type !== 'atomic') throw new Unsupported('nested state');
    if (node.entry.length || node.exit.length || node.always?.length || node.after.length || node.invoke.length)
      throw new Unsupported('state');
  }
  for (const [key, node] of Object.entries(root.states)) {
    const byEvent = new Map<string, Candidate[]>();
    for (const [eventType, defs] of node.transitions) {
      if (eventType === '*' || eventType.endsWith('.*') || eventType.startsWith('xstate.')) throw new Unsupported('event descriptor');
      byEvent.set(
        eventType,
        defs.map((t) => {
          if (t.target && (t.target.length !== 1 || !(t.target[0].key in root.states) || (t.reenter && t.target[0].key === key)))
            throw new Unsupported('target');
          const target = t.target ? t.target[0].key : key;
          const actions = t.actions.map((a) => compileAction(machine, a));
          return {
            ...compileGuard(machine, t.guard),
            target,
            actions,
            emits: emitCount(actions),
            accepts: t.target !== undefined || t.actions.length > 0,
            final: finals.has(target),
            key: `${machine.id}|${key}|${eventType}|${target}`,
            targetSlot: slotOf.get(target)!,
          };
        }),
      );
    }
    states.set(key, byEvent);
  }
  const initial = root.initial?.target[0]?.key;
  if (!initial) throw new Unsupported('initial');
  const entry = (root.entry as ActionItem[]).map((a) => compileAction(machine, a));
  return {
    initial,
    initialFinal: finals.has(initial),
    context: config.context,
    entry,
    entryEmits: emitCount(entry),
    states,
    createKey: `${machine.id}||CREATE|${initial}`,
    initialSlot: slotOf.get(initial)!,
  };
}

const emitCount = (actions: CompiledAction[]): number => actions.filter((a) => a.kind === 'emit').length;

/**
 * Runs actions in order (each sees the context the previous assign left); returns the context and writes
 * what they emit into `emitted` from index 0. Callers size `emitted` with the candidate's `emits`: an
 * empty array grown by `push` takes a 17-slot store for one or two effects.
 */
function runActions(
  actions: CompiledAction[],
  context: Record<string, unknown>,
  event: EventObject,
  emitted: unknown[],
): Record<string, unknown> {
  // One arguments object for the whole step, pointed at each action's context in turn: actions are
  // pure functions of it and keep nothing, and most steps run one or two actions.
  const args: Args = { context, event };
  let e = 0;
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i];
    args.context = context;
    const params = a.dynamicParams ? a.dynamicParams(args) : a.params;
    if (a.kind === 'emit') {
      emitted[e++] = typeof a.body === 'function' ? (a.body as (x: Args, p: unknown) => unknown)(args, params) : a.body;
      continue;
    }
    if (a.keys === null) {
      context = { ...context, ...(a.body as (x: Args, p: unknown) => Record<string, unknown>)(args, params) };
      continue;
    }
    // As xstate's assign: every key's assigner sees the context from before this action.
    const next: Record<string, unknown> = { ...context };
    const { keys, values, calls } = a as { keys: string[]; values: unknown[]; calls: boolean[] };
    for (let k = 0; k < keys.length; k++) {
      next[keys[k]] = calls[k] ? (values[k] as (x: Args, p: unknown) => unknown)(args, params) : values[k];
    }
    context = next;
  }
  return context;
}

/** The initial snapshot (context from `input`, root entry actions run); what the entry emits goes into `emitted` (sized `table.entryEmits`). */
export function tableInitial(table: Table, input: unknown, emitted: unknown[]): EntitySnapshot {
  let context: Record<string, unknown>;
  if (typeof table.context === 'function') {
    // A spread keeps the factory's object layout (all fields in the object); `Object.assign({}, …)` would
    // start from an empty literal and move fields past its fourth into a separate property array.
    context = { ...(table.context as (a: { input: unknown }) => Record<string, unknown>)({ input }) };
  } else context = (table.context ?? {}) as Record<string, unknown>;
  const init = { type: 'xstate.init', input } as EventObject;
  context = runActions(table.entry, context, init, emitted);
  return { value: table.initial, context, status: table.initialFinal ? 'done' : 'active' };
}

/** The candidate the event selects (first whose guard passes), or null: xstate's `can()` is false. */
export function tableSelect(table: Table, snapshot: EntitySnapshot, event: EventObject): Candidate | null {
  if (snapshot.status !== 'active') return null;
  const candidates = table.states.get(snapshot.value)?.get(event.type);
  if (!candidates) return null;
  const args = { context: snapshot.context as Record<string, unknown>, event };
  for (const c of candidates) {
    if (c.guard && !c.guard(args, c.guardDynamicParams ? c.guardDynamicParams(args) : c.guardParams)) continue;
    return c.accepts ? c : null;
  }
  return null;
}

/** Takes the selected candidate: the next snapshot; the emitted events are written into `emitted` (sized `candidate.emits`). */
export function tableApply(candidate: Candidate, snapshot: EntitySnapshot, event: EventObject, emitted: unknown[]): EntitySnapshot {
  const context = candidate.actions.length
    ? runActions(candidate.actions, snapshot.context as Record<string, unknown>, event, emitted)
    : snapshot.context;
  return { value: candidate.target, context, status: candidate.final ? 'done' : 'active' };
}
