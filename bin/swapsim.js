#!/usr/bin/env node
// Entry point of the `swapsim` command: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv);
