// Charts: vega-lite specs compiled and rendered to SVG strings in Node (no canvas, no browser, no network),
// with one shared look. Vega escapes every text it writes; the SVG is checked once more before it is inlined.
// vega and vega-lite (~0.9 s to load) are imported on the first chart drawn, not when swapsim starts.
import type { TopLevelSpec } from 'vega-lite';
import { THEME } from './theme.ts';

export { COLORS } from './theme.ts';

type Drawing = { vl: typeof import('vega-lite'); vega: typeof import('vega'); quiet: ReturnType<typeof import('vega').logger> };
let drawing: Promise<Drawing> | undefined;

function loadDrawing(): Promise<Drawing> {
  drawing ??= Promise.all([import('vega-lite'), import('vega')]).then(([vl, vega]) => ({
    vl,
    vega,
    // vega-lite's compile warnings are for chart authors; SWAPSIM_CHART_WARNINGS=1 prints them.
    quiet: vega.logger(process.env.SWAPSIM_CHART_WARNINGS ? vega.Warn : vega.Error),
  }));
  return drawing;
}

/** Renders one vega-lite spec to an SVG string. A loader that refuses every URL keeps rendering offline. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { vl, vega, quiet: QUIET } = await loadDrawing();
  const compiled = vl.compile({ ...spec, config: { ...THEME, ...(spec.config ?? {}) } } as TopLevelSpec, { logger: QUIET }).spec;
  const loader = vega.loader();
  loader.load = async (uri: string) => {
    throw new Error(`report charts load no data from URLs (${uri})`);
  };
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader, logLevel: vega.Error });
  try {
    const svg = await view.toSVG();
    assertInert(svg);
    return svg;
  } finally {
    view.finalize();
  }
}

/** Defence in depth: the inlined SVG may hold no script, event handler, foreign HTML or external reference. */
function assertInert(svg: string): void {
  if (/<script|<foreignObject|\son[a-z]+\s*=|javascript:|(?:href|src)\s*=\s*"(?!#)/i.test(svg)) {
    throw new Error('chart SVG holds active content; refused');
  }
}
