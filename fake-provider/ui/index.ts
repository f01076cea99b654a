// The dashboard at /_sim/ui (docs/ui.md): its files (assets.ts, built from dashboard/page/ by lib/build.mjs), the read-only
// control routes it reads besides the existing ones (data.ts) and its trigger runs (runs.ts). app.ts mounts them.
export { uiAssetRoutes } from './assets.ts';
export { uiDataRoutes } from './data.ts';
export { uiRunRoutes } from './runs.ts';
