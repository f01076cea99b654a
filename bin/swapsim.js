#!/usr/bin/env node
// Entry point of the `swapsim` command: runs the prebuilt CLI (dist/cli.js, made by lib/build.mjs on
// `npm ci`/`npm install` and before tests) with plain Node. SWAPSIM_FROM_SOURCE=1 runs cli/main.ts through
// tsx instead (development only: tsx is a devDependency).
if (process.env.SWAPSIM_FROM_SOURCE === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  await main(process.argv);
} else {
  let cli;
  try {
    cli = await import('../dist/cli.js');
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli.js')) throw err;
    console.error('swapsim: dist/cli.js is missing; build it with `npm run build` (or run from sources with SWAPSIM_FROM_SOURCE=1)');
    process.exit(2);
  }
  await cli.main(process.argv);
}
