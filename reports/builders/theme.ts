// The charts' one look (colours, fonts, axes): shared by the reports' Node renderer (charts.ts) and the dashboard's
// browser one (dashboard/page/chart.ts), so a timeline reads the same in a report and in /_sim/ui. No imports but types.
import type { Config } from 'vega-lite';

export const COLORS = {
  pass: '#1a7f37',
  fail: '#cf222e',
  warn: '#bf8700',
  info: '#0969da',
  fault: '#e8590c',
  muted: '#8c959f',
  ink: '#1f2328',
  grid: '#eaeef2',
} as const;

export const THEME: Config = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  background: 'white',
  padding: { left: 8, top: 8, bottom: 8, right: 48 },
  view: { stroke: null },
  axis: {
    labelColor: '#57606a',
    titleColor: COLORS.ink,
    gridColor: COLORS.grid,
    domainColor: '#d0d7de',
    tickColor: '#d0d7de',
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: 600,
    labelLimit: 280,
  },
  legend: {
    labelColor: '#57606a',
    titleColor: COLORS.ink,
    labelFontSize: 11,
    titleFontSize: 12,
    orient: 'bottom',
    direction: 'horizontal',
    columns: 4,
    labelLimit: 220,
  },
  title: { color: COLORS.ink, fontSize: 13, anchor: 'start' },
  range: { category: ['#0969da', '#e8590c', '#8250df', '#1a7f37', '#bf3989', '#57606a', '#bf8700', '#1b7c83'] },
};
