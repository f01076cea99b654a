// The dashboard at /_sim/ui (docs/ui.md): its files (assets.ts, built from dashboard/page/ by lib/build.mjs) and the read-only
// control routes it reads besides the existing ones (data.ts). app.ts mounts both.
export { uiAssetRoutes } from './assets.ts';
export { uiDataRoutes } from './data.ts';
