// The registry of lifecycle machines and their edges as `xstate/graph` sees them: the invariant checker
// and the transition-coverage test both read the machine's own declaration, never a hand-kept copy.
import type { AnyStateMachine } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';
import { accountMachine } from '../resources/accounts/machine.ts';
import { creditMachine } from '../resources/credits/machine.ts';
import { depositMachine } from '../resources/deposits/machine.ts';
import { deliveryMachine } from '../resources/webhooks/machine.ts';
import { destinationMachine } from '../resources/destinations/machine.ts';
import { cancelMachine } from '../resources/cancels/machine.ts';
import { quoteMachine, rfqMachine } from '../resources/rfqs/machine.ts';
import { tradeMachine } from '../resources/trades/machine.ts';
import { zapMachine } from '../resources/zaps/machine.ts';
import { recoveryMachine } from '../resources/recoveries/machine.ts';

export interface MachineInfo {
  machine: AnyStateMachine;
  finals: Set<string>;
}

function info(machine: AnyStateMachine): MachineInfo {
  const finals = new Set<string>();
  for (const [key, node] of Object.entries(machine.root.states)) if ((node as { type: string }).type === 'final') finals.add(key);
  return { machine, finals };
}

/** Every lifecycle machine by its id. Add new machines here. */
export const MACHINES: Record<string, MachineInfo> = {
  account: info(accountMachine),
  credit: info(creditMachine),
  deposit: info(depositMachine),
  webhook_delivery: info(deliveryMachine),
  destination: info(destinationMachine),
  cancel: info(cancelMachine),
  rfq: info(rfqMachine),
  quote: info(quoteMachine),
  trade: info(tradeMachine),
  zap: info(zapMachine),
  recovery: info(recoveryMachine),
};

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
    set = new Set(edgesOf(MACHINES[kind].machine).map((e) => `${e.from}|${e.event}|${e.to}`));
    edgeCache.set(kind, set);
  }
  return set;
}
