// Scheduler tasks as data: each resource registers the handler of its task kinds here (module-level code,
// as machines are registered), and a world's scheduler runs a task by looking its kind up and giving the
// handler that world and the task's arguments (ids and plain values). Nothing a task needs is captured in a
// closure, so a world's pending work is copied with it (a snapshot, copy.ts).
import type { World } from '../world.ts';
import { registerTask } from './task-registry.ts';

/**
 * Registers `handler` for the task kinds given (several labels may share one handler: a swap step's label
 * names its kind of swap). A kind has one handler; registering it twice is a bug (two modules, one label).
 */
export function defineTask<A>(
  kinds: string | readonly string[],
  handler: (world: World, args: A, task_id: number) => void | Promise<void>,
): void {
  registerTask(typeof kinds === 'string' ? [kinds] : kinds, handler as (world: never, args: never, task_id: number) => void);
}
