// The registry of lifecycle machines, filled by the resources that run them (each lifecycle made through
// engine/index.ts registers its machine), and their edges as `xstate/graph` sees them: the invariant
// checker and the transition-coverage test both read the machine's own declaration, never a hand-kept copy.
// The registry holds static machine definitions (no world state): a world's resources are all loaded
// before any world exists.
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';

export interface MachineInfo {
  machine: AnyStateMachine;
  finals: Set<string>;
}

function info(machine: AnyStateMachine): MachineInfo {
  const finals = new Set<string>();
  for (const [key, node] of Object.entries(machine.root.states)) if ((node as { type: string }).type === 'final') finals.add(key);
  return { machine, finals };
}

const registry = new Map<string, MachineInfo>();

/** Registers a machine under its id (a resource's lifecycle); the same machine again is a no-op, another under a taken id an error. */
export function registerMachine(machine: AnyStateMachine): void {
  const known = registry.get(machine.id);
  if (known !== undefined && known.machine !== machine) throw new Error(`two lifecycle machines are registered as '${machine.id}'`);
  if (known === undefined) registry.set(machine.id, info(machine));
}

/** Every registered lifecycle machine by its id, in registration order. */
export function registeredMachines(): ReadonlyMap<string, MachineInfo> {
  return registry;
}

/** The registered machine of this kind, if any. */
export function machineInfo(kind: string): MachineInfo | undefined {
  return registry.get(kind);
}

export interface Edge {
  from: string;
  event: string;
  to: string;
}

/** (state, event, target) triples, from `xstate/graph`'s directed graph; self-loops keep from === to. */
export function edgesOf(machine: AnyStateMachine): Edge[] {
  const out: Edge[] = [];
  const walk = (node: ReturnType<typeof toDirectedGraph>): void => {
    for (const e of node.edges) out.push({ from: e.source.key, event: e.label.text, to: e.target.key });
    node.children.forEach(walk);
  };
  walk(toDirectedGraph(machine));
  return out;
}

const edgeCache = new Map<string, Set<string>>();
export function machineEdges(kind: string): Set<string> {
  let set = edgeCache.get(kind);
  if (!set) {
    set = new Set(edgesOf(registry.get(kind)!.machine).map((e) => `${e.from}|${e.event}|${e.to}`));
    edgeCache.set(kind, set);
  }
  return set;
}
