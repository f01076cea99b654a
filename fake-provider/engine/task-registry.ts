// The handlers of scheduler task kinds, by kind (tasks.ts registers them with their types; world.ts runs them).
// Apart from tasks.ts so that the world, which runs its tasks through it, imports nothing that imports the world.

type Handler = (world: never, args: never, task_id: number) => void | Promise<void>;

const handlers = new Map<string, Handler>();

/** Registers `handler` for each kind; a kind has one handler, so registering it twice is a bug (two modules, one label). */
export function registerTask(kinds: readonly string[], handler: Handler): void {
  for (const kind of kinds) {
    if (handlers.has(kind)) throw new Error(`task kind ${kind} has a handler already`);
    handlers.set(kind, handler);
  }
}

/** Runs a data task of `world` (its scheduler's runner, set when the world is made). */
export function runTask(world: unknown, kind: string, args: unknown, task_id: number): void | Promise<void> {
  const handler = handlers.get(kind);
  if (handler === undefined) throw new Error(`no handler for the task kind ${kind}`);
  return handler(world as never, args as never, task_id);
}
