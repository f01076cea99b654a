// The dashboard's timeline chart: an entity's timeline drawn as the report pages' swimlane. The spec is the
// reports' own (reports/builders/timeline.ts, with their theme); this file only renders it in the browser. It is
// its own bundle (dist/ui/chart.js, built by lib/build.mjs), loaded on the first timeline: vega is most of its
// weight, and the first view should not wait for it. Expressions go through vega's interpreter, not `new
// Function`: the page's Content-Security-Policy allows no eval.
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { expressionInterpreter } from 'vega-interpreter';
import { timelineChart } from '../../reports/builders/timeline.ts';
import { THEME } from '../../reports/builders/theme.ts';
import type { TimelineEntry } from '../../reports/types.ts';

interface DrawnChart {
  /** The chart (an SVG element), or null when the timeline has nothing to draw. */
  svg: SVGSVGElement | null;
  /** The report's caption under it: how many lanes, over how much sim time. */
  caption: string;
}

/** Renders one timeline (the rows of GET /_sim/timeline) to an SVG element, offline (a loader that loads nothing). */
export async function drawTimeline(entries: TimelineEntry[], title: string): Promise<DrawnChart> {
  const chart = timelineChart(entries, { title });
  if (chart === null) return { svg: null, caption: '' };
  const compiled = compile({ ...chart.spec, config: { ...THEME, ...(chart.spec.config ?? {}) } } as TopLevelSpec).spec;
  const container = document.createElement('div');
  const view = new View(parse(compiled, undefined, { ast: true }), {
    expr: expressionInterpreter,
    renderer: 'svg',
    container,
    hover: false,
    loader: {
      load: () => Promise.reject(new Error('the dashboard loads no chart data from URLs')),
      sanitize: () => Promise.reject(new Error('the dashboard loads no chart data from URLs')),
      http: () => Promise.reject(new Error('no network')),
      file: () => Promise.reject(new Error('no files')),
    } as never,
  });
  try {
    await view.runAsync();
    const svg = container.querySelector('svg');
    return { svg, caption: chart.caption ?? '' };
  } finally {
    view.finalize();
  }
}
