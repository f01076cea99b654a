// The engine's one door: what a resource may use to store its entities, run their lifecycles and publish
// their events. Resources import this module only (engine-gate.test.ts under resources/ holds them to it);
// how things are laid out in memory stays behind it.
//
// - Tables: `EntityTable` (get, insert, list, values, retain; `uniqueIndex` and `lookupIndex` declared on
//   it), and `keepWhere`/`dropWhere` for a store's plain arrays and maps.
// - Lifecycles: `lifecycle(machine)` and `compactLifecycle(machine, compact)` give a resource's steps
//   (start, advance; a compact one's entities keep their state opaque, read with `snapshot`) and register
//   the machine for the invariant checker and the coverage test.
// - Events: `publish`, `publishDerived` (data rebuilt from the entity on read), `selectEvents`.
// - Columns: `DecimalColumn` and `PairColumn`, numbers kept by the million (price tapes).
// - Scheduler task labels: `taskLabels(kinds, steps)`; tasks as data: `defineTask(kinds, handler)` registers
//   the handler a world's scheduler runs for a kind (a task is its kind and plain arguments, never a closure).

export { EntityTable, entityStore } from './entity-table.ts';
export { dropFromMap as dropWhere } from './retain.ts';
export { compactLifecycle, lifecycle, statusOf, type LifecycleState, type MachineSnapshot } from './lifecycle.ts';
export { edgesOf, machineEdges, machineInfo, registeredMachines } from './machines.ts';
export { matchesFilter, publish, publishDerived, selectEvents, type EventFilter } from './publish.ts';
export type { EventEnvelope, EventList, StoredEvent } from './events.ts';
export { DecimalColumn, PairColumn } from './columns.ts';
export { taskLabels } from './labels.ts';
export { defineTask } from './tasks.ts';
export { ed25519PublicKey, secp256k1PublicKey, type Secp256k1PublicKey } from './keys.ts';
