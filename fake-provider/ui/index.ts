// The dashboard at /_sim/ui (docs/ui.md): its files (assets.ts, built from dashboard/page/ by lib/build.mjs) and the read-only
// control routes it reads besides the existing ones (data.ts). app.ts mounts both.
export { uiAssetRoutes, UI_DIST } from './assets.ts';
export { uiDataRoutes, uiReplies, ENTITY_KINDS, type EntityKind, type EntityRow } from './data.ts';
