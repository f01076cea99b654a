// What a start-up failure tells the user: one line with the cause and the fix, for the failures a user meets
// (a port in use or not allowed, a host that is not this machine's, a file that cannot be written).
// Anything else is a bug and keeps its stack.

/** A failure found before starting, already worded for the user. */
export class StartError extends Error {}

/** The one-line message for a start-up failure, or null when it is not one the user can fix. */
export function startErrorMessage(err: unknown, opts: { port: number; host: string }): string | null {
  if (err instanceof StartError) return err.message;
  const e = err as NodeJS.ErrnoException & { path?: string };
  const where = `${opts.host}:${opts.port}`;
  switch (e?.code) {
    case 'EADDRINUSE':
      return `port ${opts.port} on ${opts.host} is in use (another swapsim or \`npm start\`?); stop that process or pick another port with --port (0: any free port)`;
    case 'EACCES':
      if (e.syscall === 'listen' || e.syscall === 'bind')
        return `not allowed to listen on ${where} (ports below 1024 need privileges); pick a port of 1024 or more with --port`;
      return `cannot write ${e.path ?? 'a file'}: permission denied; pick another path`;
    case 'EADDRNOTAVAIL':
      return `${opts.host} is not an address of this machine; use --host 127.0.0.1 (or 0.0.0.0 for every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `--host ${opts.host} does not resolve; use an address such as 127.0.0.1`;
    case 'ENOENT':
      return `cannot write ${e.path ?? 'a file'}: its folder does not exist; create it first or pick another path`;
    case 'EISDIR':
      return `${e.path ?? 'that path'} is a folder; give a file path`;
    default:
      return null;
  }
}
