// engine/table.ts compiles each machine from xstate's own structure, which is not public API: the root node
// (`machine.root`: type, states, transitions as a Map, entry/exit/always/after/invoke arrays), the
// implementations (`machine.implementations.actions/guards`), and the shape of built-in actions
// (`assign` as { type: 'xstate.assign', assignment }, `emit` as { type: 'xstate.emit', event }).
// package.json pins xstate to the minor this was written against (~5.33); this test fails loudly, naming
// the field, if an upgrade moves any of it, and checks every machine still compiles to a table.
import { describe, expect, it } from 'vitest';
import { assign, emit } from 'xstate';
import { registeredMachines } from './machines.ts';
import '../resources/index.ts'; // every resource registers its lifecycles' machines
import { compileTable } from './table.ts';

const MACHINES = Object.fromEntries(registeredMachines());

const field = (what: string, ok: boolean): void => {
  if (!ok) throw new Error(`xstate's private structure changed: ${what} (engine/table.ts reads it; see the pin of xstate in package.json)`);
};

describe('xstate internals engine/table.ts relies on', () => {
  it('built-in actions keep their shape', () => {
    const a = assign({ n: 1 }) as unknown as { type?: string; assignment?: unknown };
    field("assign() is { type: 'xstate.assign', assignment }", a.type === 'xstate.assign' && typeof a.assignment === 'object');
    const e = emit({ type: 'x' }) as unknown as { type?: string; event?: unknown };
    field("emit() is { type: 'xstate.emit', event }", e.type === 'xstate.emit' && typeof e.event === 'object');
  });

  for (const [kind, { machine }] of Object.entries(MACHINES)) {
    it(`${kind}: root node, its states and implementations are where table.ts reads them, and it compiles`, () => {
      const m = machine as unknown as { root?: any; implementations?: { actions?: unknown; guards?: unknown }; config?: unknown };
      field('machine.root', typeof m.root === 'object' && m.root !== null);
      field('machine.root.type', typeof m.root.type === 'string');
      field('machine.root.states', typeof m.root.states === 'object');
      for (const [key, node] of Object.entries<any>(m.root.states)) {
        field(`state ${key}: node.transitions is a Map`, node.transitions instanceof Map);
        for (const name of ['entry', 'exit', 'after', 'invoke']) field(`state ${key}: node.${name} is an array`, Array.isArray(node[name]));
      }
      field('machine.implementations.actions', typeof m.implementations?.actions === 'object');
      field('machine.implementations.guards', typeof m.implementations?.guards === 'object');
      field('machine.config', typeof m.config === 'object');
      expect(compileTable(machine), `${kind} no longer compiles to a table`).not.toBeNull();
    });
  }
});
