// The dashboard (GET /_sim/ui): views of the world and its levers, drawn from the control plane and /v1 only. One
// view at a time, paged tables, timelines scoped to an entity; it polls GET /_sim/ui/pulse (a change cursor) and
// redraws the open view when the cursor moves. With an organization's API key instead of the control token it
// shows that organization alone, through /v1 (docs/ui.md).
// It lives outside fake-provider/ because it runs in the viewer's browser, on its clock: nothing of the engine imports it.
import { Client, errorLine, loadCredentials, saveCredentials, type Credentials, type Reply } from './client.ts';

/** How often the page polls for changes: 1 s, or `?poll_ms=` (at least 100; the tests poll faster). */
const POLL_MS = Math.max(100, Number(new URLSearchParams(location.search).get('poll_ms')) || 1000);
const PAGE = 25;
const ENTITY_KINDS = ['trade', 'zap', 'rfq', 'cancel', 'recovery', 'deposit', 'destination'];
const FAULT_EXAMPLE = '{\n  "target": "trade",\n  "effect": { "fail": "execution_failed" },\n  "times": 1\n}';

interface Org {
  organization_id: string;
  api_key: string;
  api_keys: string[];
  [k: string]: unknown;
}

type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;

/** A small element builder: attributes (`on*` are listeners), then children (strings become text). */
function h(tag: string, attrs: Attrs = {}, ...children: Array<Node | string | number | null | undefined | false>): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'object' ? c : String(c));
  return el;
}

const iso = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const suffix = (key: string): string => `…${key.slice(-4)}`;

function table(head: string[], rows: HTMLElement[], testid: string): HTMLElement {
  return h('table', { 'data-testid': testid }, h('thead', {}, h('tr', {}, ...head.map((x) => h('th', {}, x)))), h('tbody', {}, ...rows));
}

const state = {
  tab: 'world',
  org_id: '',
  orgs: [] as Org[],
  /** The organizations were read by this poll: the Organizations view need not read them again. */
  orgsFresh: false,
  kind: 'trade',
  entity: '' as string,
  /** The open entity's account: its timeline then reads that account's events only (fast on a large world). */
  entityAccount: '' as string,
  account: '' as string,
  /** Per paged table: the cursors of the pages before the current one, and the current one. */
  pages: new Map<string, Array<string | undefined>>(),
  pulse: '',
  lastError: '' as string,
  /** Per organization, the trigger run the page started (or found running) there, and its last state read. */
  runs: new Map<string, { trigger: string; run_id: string; status: string }>(),
};

const credentials: Credentials = loadCredentials();
const client = new Client(credentials);
const orgMode = (): boolean => credentials.api_key !== null && credentials.api_key !== '';

const TABS: Array<[string, string]> = [
  ['world', 'Organizations'],
  ['accounts', 'Accounts'],
  ['lifecycles', 'Lifecycles'],
  ['webhooks', 'Webhooks'],
  ['faults', 'Faults'],
  ['triggers', 'Triggers'],
  ['conduct', 'Conduct'],
  ['invariants', 'Invariants'],
];
const ORG_TABS: Array<[string, string]> = [
  ['accounts', 'Accounts'],
  ['feed', 'Events'],
];

function cursorOf(name: string): string | undefined {
  return state.pages.get(name)?.at(-1);
}

function pager(name: string, reply: { has_more: boolean; next_cursor: string | null; total?: number }, shown: number): HTMLElement {
  const stack = state.pages.get(name) ?? [undefined];
  const prev = h(
    'button',
    {
      class: 'act',
      'data-testid': `${name}-prev`,
      disabled: stack.length <= 1,
      onclick: () => {
        stack.pop();
        state.pages.set(name, stack);
        void draw();
      },
    },
    '‹ newer',
  );
  const next = h(
    'button',
    {
      class: 'act',
      'data-testid': `${name}-next`,
      disabled: !reply.has_more,
      onclick: () => {
        state.pages.set(name, [...stack, reply.next_cursor ?? undefined]);
        void draw();
      },
    },
    'older ›',
  );
  const total = reply.total === undefined ? '' : ` of ${reply.total}`;
  return h('div', { class: 'pager' }, prev, next, h('span', { class: 'muted' }, `page ${stack.length}, ${shown} shown${total}`));
}

function resetPages(...names: string[]): void {
  for (const n of names) state.pages.delete(n);
}

function fail(r: Reply): HTMLElement {
  return h('div', { class: 'error', 'data-testid': 'error' }, errorLine(r));
}

/**
 * What the last lever answered (its result or error envelope), above the view: a live redraw of the view keeps
 * it; the next lever or another tab replaces it.
 */
function notice(testid: string, el: HTMLElement | null): void {
  document.getElementById('notice')!.replaceChildren(...(el ? [h('div', { 'data-testid': testid }, el)] : []));
}

const currentOrg = (): Org | undefined => state.orgs.find((o) => o.organization_id === state.org_id);

/** The chosen organization's id when it has a clock of its own: the clock levers and the clock shown are its. */
const ownClock = (): string | null => (currentOrg()?.clock !== undefined ? state.org_id : null);

// ---- the header: tabs, clock and organization picker ----

function drawTabs(): void {
  const nav = document.getElementById('tabs')!;
  nav.replaceChildren(
    ...(orgMode() ? ORG_TABS : TABS).map(([id, label]) =>
      h(
        'button',
        {
          class: state.tab === id ? 'on' : '',
          'data-tab': id,
          onclick: () => {
            state.tab = id;
            notice('', null);
            drawTabs();
            void draw();
          },
        },
        label,
      ),
    ),
  );
}

async function drawBar(pulse: { now_ms: number; mode: string; speed: number } | null): Promise<void> {
  const clock = document.getElementById('clock')!;
  if (pulse) clock.textContent = `${iso(pulse.now_ms)} · ${pulse.mode}${pulse.mode === 'realtime' ? ` ×${pulse.speed}` : ''}`;
  clock.setAttribute('data-now-ms', pulse ? String(pulse.now_ms) : '');
}

function orgPicker(): HTMLElement {
  const select = h(
    'select',
    {
      'data-testid': 'org',
      onchange: (e) => {
        state.org_id = (e.target as HTMLSelectElement).value;
        state.entity = '';
        state.account = '';
        state.pages.clear();
        void draw();
      },
    },
    ...state.orgs.map((o) =>
      h(
        'option',
        { value: o.organization_id, selected: o.organization_id === state.org_id },
        `${o.organization_id} (key ${suffix(o.api_key)})`,
      ),
    ),
  );
  return h('label', {}, 'Organization ', select);
}

function clockLevers(): HTMLElement {
  const ms = h('input', { type: 'number', min: 0, value: 60000, 'data-testid': 'advance-ms', class: 'ms' }) as HTMLInputElement;
  const speed = h('input', { type: 'number', min: 0.001, step: 'any', value: 1, 'data-testid': 'speed', class: 'ms' }) as HTMLInputElement;
  // The same calls as the control plane's, scoped to the chosen organization when it has a clock of its own.
  const run = async (path: string, body: Record<string, unknown>): Promise<void> => {
    const org = ownClock();
    const r = await client.sim('POST', path, org === null ? body : { ...body, organization_id: org });
    const done =
      r.body?.ran !== undefined
        ? `ran ${r.body.ran.ran}${r.body.pending !== undefined ? `, ${r.body.pending} pending` : ''}`
        : `speed ×${r.body?.clock?.speed}`;
    notice('clock-result', r.status === 200 ? h('div', { class: 'note' }, done) : fail(r));
    await poll();
  };
  return h(
    'span',
    {},
    'Clock ',
    ms,
    ' ms ',
    h('button', { class: 'act', 'data-testid': 'advance', onclick: () => void run('/clock/advance', { ms: Number(ms.value) }) }, 'Advance'),
    ' ',
    h('button', { class: 'act', 'data-testid': 'settle', onclick: () => void run('/clock/settle', {}) }, 'Settle'),
    ' realtime ×',
    speed,
    ' ',
    h(
      'button',
      { class: 'act', 'data-testid': 'set-speed', onclick: () => void run('/clock/speed', { speed: Number(speed.value) }) },
      'Set speed',
    ),
  );
}

function drawLevers(): void {
  const bar = document.getElementById('bar')!;
  if (orgMode()) {
    bar.replaceChildren(h('span', {}, `Organization key ${suffix(credentials.api_key!)}: this organization only, through /v1`), signOut());
    return;
  }
  bar.replaceChildren(clockLevers(), orgPicker(), signOut());
}

function signOut(): HTMLElement {
  return h(
    'button',
    {
      class: 'act right',
      onclick: () => {
        saveCredentials({ control_token: null, api_key: null });
        location.reload();
      },
    },
    'Sign out',
  );
}

// ---- sign in (a control token, or one organization's key) ----

function signIn(message: string): HTMLElement {
  const token = h('input', { type: 'password', 'data-testid': 'token', class: 'secret' }) as HTMLInputElement;
  const key = h('input', { type: 'password', 'data-testid': 'api-key', class: 'secret' }) as HTMLInputElement;
  const go = (c: Credentials): void => {
    saveCredentials(c);
    location.reload();
  };
  return h(
    'div',
    { 'data-testid': 'sign-in' },
    h('div', { class: 'error' }, message),
    h('p', {}, 'This server requires its control token (swapsim serve --control-token). Or see one organization only, with its API key.'),
    h(
      'p',
      {},
      h('label', {}, 'Control token ', token),
      ' ',
      h(
        'button',
        { class: 'act', 'data-testid': 'sign-in-token', onclick: () => go({ control_token: token.value, api_key: null }) },
        'Sign in',
      ),
    ),
    h(
      'p',
      {},
      h('label', {}, 'Organization API key ', key),
      ' ',
      h(
        'button',
        { class: 'act', 'data-testid': 'sign-in-key', onclick: () => go({ control_token: null, api_key: key.value }) },
        'Sign in',
      ),
    ),
  );
}

// ---- views ----

async function viewWorld(): Promise<HTMLElement> {
  // poll() has just read them when the world changed; read again only on a redraw the user asked for.
  const r = state.orgsFresh ? { status: 200, body: { organizations: state.orgs } } : await client.sim('GET', '/organizations');
  state.orgsFresh = false;
  if (r.status !== 200) return fail(r);
  const rows = (r.body.organizations as Org[]).map((o) =>
    h(
      'tr',
      {
        class: 'pick',
        'data-org': o.organization_id,
        onclick: () => {
          state.org_id = o.organization_id;
          state.tab = 'accounts';
          state.pages.clear();
          drawTabs();
          drawLevers();
          void draw();
        },
      },
      h('td', { class: 'mono' }, o.organization_id),
      h('td', { class: 'mono' }, o.api_keys.map(suffix).join(' ')),
      h('td', {}, String(o.platform_fee_bps)),
      h('td', {}, String(o.integrator_fee_bps)),
      h('td', {}, String(o.recovery_enabled)),
      h('td', {}, String(o.partner_screening)),
      h('td', { class: 'mono' }, (o.forbidden_assets as string[]).join(', ')),
      h(
        'td',
        { class: 'mono' },
        Object.entries(o.rate_limits as Record<string, number>)
          .map(([k, v]) => `${k} ${v}/s`)
          .join(', '),
      ),
      h('td', {}, iso(o.created_at_ms as number)),
    ),
  );
  return h(
    'section',
    {},
    h('h2', {}, `Organizations (${rows.length})`),
    table(
      [
        'organization',
        'keys',
        'platform fee bps',
        'integrator fee bps',
        'recovery',
        'partner screening',
        'forbidden assets',
        'rate limits',
        'created',
      ],
      rows,
      'orgs',
    ),
    h('p', { class: 'muted' }, 'Pick one to see its accounts; the organization picker above scopes every view.'),
  );
}

async function viewAccounts(): Promise<HTMLElement> {
  if (!state.org_id) return h('p', {}, 'No organization yet: POST /_sim/organizations makes one.');
  const r = await client.sim(
    'GET',
    `/ui/accounts?organization_id=${encodeURIComponent(state.org_id)}&limit=${PAGE}${q('cursor', cursorOf('accounts'))}`,
  );
  if (r.status !== 200) return fail(r);
  const rows = (r.body.accounts as any[]).map((a) =>
    h(
      'tr',
      {
        class: `pick${a.account_id === state.account ? ' sel' : ''}`,
        'data-account': a.account_id,
        onclick: () => {
          state.account = a.account_id;
          resetPages('credits');
          void draw();
        },
      },
      h('td', { class: 'mono' }, a.account_id),
      h('td', {}, a.label ?? ''),
      h('td', {}, a.status),
      h(
        'td',
        { class: 'mono' },
        ...(a.balances as any[]).flatMap((b) => [
          `${b.available_atoms} ${b.asset_key}${b.pending_atoms !== '0' ? ` (+${b.pending_atoms} pending)` : ''}`,
          h('br'),
        ]),
      ),
      h('td', {}, `${a.credits.open} open · ${a.credits.locked} locked · ${a.credits.consumed} consumed`),
    ),
  );
  const left = h(
    'section',
    {},
    h('h2', {}, 'Accounts'),
    table(['account', 'label', 'status', 'balances (available atoms)', 'credits'], rows, 'accounts'),
    pager('accounts', r.body, rows.length),
  );
  return h(
    'div',
    { class: 'cols' },
    left,
    state.account ? await credits(state.account) : h('p', { class: 'muted' }, 'Pick an account to see its credits.'),
  );
}

async function credits(account_id: string): Promise<HTMLElement> {
  const r = await client.sim(
    'GET',
    `/ui/credits?account_id=${encodeURIComponent(account_id)}&limit=${PAGE}${q('cursor', cursorOf('credits'))}`,
  );
  if (r.status !== 200) return fail(r);
  const rows = (r.body.credits as any[]).map((c) =>
    h(
      'tr',
      { 'data-credit': c.credit_id },
      h('td', { class: 'mono' }, c.credit_id),
      h('td', { class: 'mono' }, `${c.atoms} ${c.asset_key}`),
      h('td', {}, h('span', { class: `tag ${c.status === 'open' ? 'ok' : c.status === 'locked' ? '' : 'muted'}` }, c.status)),
      h('td', {}, `${c.source_type} `, entityLink(c.source_id)),
      h('td', { class: 'mono' }, c.held_by ? entityLink(c.held_by) : c.consumed_by ? entityLink(c.consumed_by) : ''),
      h('td', {}, iso(c.created_at_ms)),
    ),
  );
  return h(
    'section',
    {},
    h('h2', {}, `Credits of ${account_id}`),
    table(['credit', 'amount', 'status', 'came from', 'held / consumed by', 'created'], rows, 'credits'),
    pager('credits', r.body, rows.length),
  );
}

/** An id that opens its timeline in the Lifecycles view. */
function entityLink(id: string): HTMLElement {
  return h(
    'a',
    {
      href: '#',
      class: 'mono',
      onclick: (e) => {
        e.preventDefault();
        state.entity = id;
        state.entityAccount = state.account;
        state.tab = 'lifecycles';
        drawTabs();
        void draw();
      },
    },
    id,
  );
}

async function viewLifecycles(): Promise<HTMLElement> {
  if (!state.org_id) return h('p', {}, 'No organization yet.');
  const kind = h(
    'select',
    {
      'data-testid': 'kind',
      onchange: (e) => {
        state.kind = (e.target as HTMLSelectElement).value;
        resetPages('entities');
        void draw();
      },
    },
    ...ENTITY_KINDS.map((k) => h('option', { value: k, selected: k === state.kind }, k)),
  );
  // The list and the open timeline are read at once: a click on a row waits for one round trip, not two.
  const panel = state.entity ? timeline(state.entity) : null;
  const r = await client.sim(
    'GET',
    `/ui/entities?organization_id=${encodeURIComponent(state.org_id)}&kind=${state.kind}&limit=${PAGE}${q('cursor', cursorOf('entities'))}`,
  );
  if (r.status !== 200) return fail(r);
  const rows = (r.body.entities as any[]).map((x) =>
    h(
      'tr',
      {
        class: `pick${x.id === state.entity ? ' sel' : ''}`,
        'data-entity': x.id,
        onclick: () => {
          state.entity = x.id;
          state.entityAccount = x.account_id ?? '';
          void draw();
        },
      },
      h('td', { class: 'mono' }, x.id),
      h('td', { class: 'mono' }, x.account_id ?? ''),
      h('td', {}, x.status),
      h('td', {}, iso(x.created_at_ms)),
    ),
  );
  const left = h(
    'section',
    {},
    h('h2', {}, 'Lifecycles ', kind),
    table([state.kind, 'account', 'status', 'created'], rows, 'entities'),
    pager('entities', r.body, rows.length),
  );
  return h(
    'div',
    { class: 'cols' },
    left,
    panel
      ? await panel
      : h('p', { class: 'muted' }, 'Pick one to see its timeline: transitions, events, fault firings and webhook attempts.'),
  );
}

async function timeline(entity_id: string): Promise<HTMLElement> {
  const r = await client.sim(
    'GET',
    `/timeline?entity_id=${encodeURIComponent(entity_id)}${q('account_id', state.entityAccount || undefined)}`,
  );
  if (r.status !== 200) return fail(r);
  const rows = (r.body.timeline as any[]).map((t) =>
    h(
      'tr',
      { class: t.kind },
      h('td', {}, iso(t.sim_ms)),
      h('td', {}, t.kind),
      h('td', { class: 'mono' }, `${t.entity_type} ${t.entity_id}`),
      h('td', { class: t.ok === false ? 'bad' : '' }, t.kind === 'transition' ? `${t.from ?? '∅'} → ${t.to}` : (t.event_type ?? '')),
      h('td', { class: 'mono' }, t.detail ?? ''),
    ),
  );
  return h(
    'section',
    { 'data-testid': 'timeline-panel' },
    h('h2', {}, `Timeline of ${entity_id}`),
    chartFigure(entity_id, r.body.timeline),
    table(['sim time', 'kind', 'entity', 'what', 'detail'], rows, 'timeline'),
  );
}

/** The chart bundle (dist/ui/chart.js: vega and the reports' swimlane spec), loaded once, on the first timeline. */
const CHART_URL = '/_sim/ui/chart.js';
let chartModule: Promise<typeof import('./chart.ts')> | null = null;
const loadChart = (): Promise<typeof import('./chart.ts')> => (chartModule ??= import(CHART_URL));

/** Resolves after the next frame has been painted. */
const afterPaint = (): Promise<void> => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));

/** The last chart drawn and the rows it was drawn from: a live redraw with the same rows shows it again as is. */
let lastChart: { key: string; nodes: Node[] } = { key: '', nodes: [] };

/**
 * An entity's timeline as the report pages' swimlane. The table beside it shows at once; the chart fills its
 * figure when drawn (the bundle loads on the first one). A redraw whose rows did not change reuses the drawing,
 * so the view's DOM stays equal and nothing flickers.
 */
function chartFigure(entity_id: string, entries: any[]): HTMLElement {
  const fig = h('figure', { class: 'chart', 'data-testid': 'timeline-chart' });
  const key = `${entity_id} ${JSON.stringify(entries)}`;
  if (lastChart.key === key) {
    fig.append(...lastChart.nodes.map((n) => n.cloneNode(true)));
    return fig;
  }
  fig.append(h('p', { class: 'muted' }, 'Drawing the chart…'));
  // Begun once the table is on screen: the chart's work (and its bundle's) never delays the table's frame.
  void afterPaint()
    .then(loadChart)
    .then((m) => m.drawTimeline(entries, `Timeline of ${entity_id}`))
    .then(
      (drawn) => {
        const nodes: Node[] = drawn.svg
          ? [drawn.svg, h('p', { class: 'muted caption' }, drawn.caption)]
          : [h('p', { class: 'muted' }, 'Nothing to draw.')];
        lastChart = { key, nodes };
        fig.replaceChildren(...nodes.map((n) => n.cloneNode(true)));
      },
      (err: unknown) =>
        fig.replaceChildren(h('div', { class: 'error' }, `the chart was not drawn: ${err instanceof Error ? err.message : String(err)}`)),
    )
    .then(() =>
      requestAnimationFrame(() => {
        // What bench:ui reads for the chart: when it was on screen, since the click that opened the timeline (on
        // the view's container: the figure itself stays equal to its next redraw's).
        const at = performance.now();
        const main = document.getElementById('view')!;
        main.setAttribute('data-chart-painted-at-ms', String(Math.round(at)));
        main.setAttribute('data-chart-since-click-ms', String(Math.round(at - lastClick_ms)));
      }),
    );
  return fig;
}

async function viewWebhooks(): Promise<HTMLElement> {
  const org = currentOrg();
  if (!org) return h('p', {}, 'No organization yet.');
  const r = await client.sim(
    'GET',
    `/ui/events?organization_id=${encodeURIComponent(org.organization_id)}&limit=${PAGE}${q('cursor', cursorOf('events'))}`,
  );
  if (r.status !== 200) return fail(r);
  const replay = async (e: any): Promise<void> => {
    const hooks = await client.v1('GET', '/webhooks', org.api_key);
    const active = hooks.status === 200 ? (hooks.body.webhooks as any[]).find((w) => w.active) : undefined;
    if (!active) {
      notice('replay-result', hooks.status === 200 ? h('div', { class: 'error' }, 'this organization has no active webhook') : fail(hooks));
      return;
    }
    const body = { since_ms: e.created_at_ms, types: [e.type] };
    const out = await client.v1('POST', `/webhooks/${active.webhook_id}/replay`, org.api_key, body);
    notice(
      'replay-result',
      out.status === 200
        ? h('div', { class: 'note' }, `replay ${out.body.status}: ${e.type} since ${iso(e.created_at_ms)} to ${active.webhook_id}`)
        : fail(out),
    );
    await poll();
  };
  const rows = (r.body.events as any[]).map((e) =>
    h(
      'tr',
      { 'data-event': e.event_id },
      h('td', {}, iso(e.created_at_ms)),
      h('td', {}, e.type),
      h('td', { class: 'mono' }, e.event_id),
      h('td', { class: 'mono' }, e.account_id),
      h(
        'td',
        {},
        ...(e.deliveries as any[]).map((d) =>
          h(
            'div',
            { 'data-delivery': d.delivery_id },
            h('span', { class: `tag ${d.status === 'success' ? 'ok' : d.status === 'failed' ? 'bad' : ''}` }, d.status),
            d.replay ? ' replay ' : ' ',
            h('span', { class: 'mono' }, d.delivery_id),
            h(
              'ol',
              {},
              ...(d.attempts as any[]).map((a) =>
                h(
                  'li',
                  { class: a.http_status >= 200 && a.http_status < 300 ? 'ok' : 'bad' },
                  `${iso(a.at_ms)} HTTP ${a.http_status} (${a.copies} sent${a.effects.length ? `, ${a.effects.join('+')}` : ''}) → ${a.state}`,
                ),
              ),
            ),
          ),
        ),
      ),
      h('td', {}, h('button', { class: 'act', 'data-testid': 'replay', onclick: () => void replay(e) }, 'Replay')),
    ),
  );
  return h(
    'section',
    {},
    h('h2', {}, 'Events and webhook deliveries'),
    h(
      'p',
      { class: 'muted' },
      "Replay asks POST /v1/webhooks/{id}/replay for this event's type since its time (the spec's replay): this event and later ones of its type are sent again.",
    ),
    table(['created', 'type', 'event', 'account', 'deliveries and attempts', ''], rows, 'events'),
    pager('events', r.body, rows.length),
  );
}

async function viewFaults(): Promise<HTMLElement> {
  const r = await client.sim('GET', '/faults');
  if (r.status !== 200) return fail(r);
  const text = h('textarea', { rows: 8, 'data-testid': 'fault-body' }) as HTMLTextAreaElement;
  text.value = sessionStorage.getItem('swapsim.ui.fault') ?? FAULT_EXAMPLE;
  const add = async (): Promise<void> => {
    sessionStorage.setItem('swapsim.ui.fault', text.value);
    const res = await client.sim('POST', '/faults', text.value);
    notice('fault-result', res.status === 200 ? h('div', { class: 'note' }, `added ${res.body.fault.fault_id}`) : fail(res));
    if (res.status === 200) await draw();
  };
  const remove = async (id: string): Promise<void> => {
    const res = await client.sim('DELETE', `/faults/${encodeURIComponent(id)}`);
    notice('fault-result', res.status === 200 ? h('div', { class: 'note' }, `removed ${id}`) : fail(res));
    await draw();
  };
  const rules = (r.body.faults as any[]).map((f) =>
    h(
      'tr',
      { 'data-fault': f.fault_id },
      h('td', { class: 'mono' }, f.fault_id),
      h('td', {}, f.target),
      h('td', { class: 'mono' }, JSON.stringify(f.effect)),
      h('td', { class: 'mono' }, JSON.stringify(f.match)),
      h('td', {}, String(f.probability)),
      h('td', {}, f.times === null ? '∞' : String(f.times)),
      h('td', {}, h('button', { class: 'act', 'data-testid': 'remove-fault', onclick: () => void remove(f.fault_id) }, 'Remove')),
    ),
  );
  const fired = (r.body.fired as any[])
    .slice(-200)
    .reverse()
    .map((f) =>
      h(
        'tr',
        {},
        h('td', {}, iso(f.at_ms)),
        h('td', { class: 'mono' }, f.fault_id),
        h('td', {}, f.target),
        h('td', { class: 'mono' }, f.subject),
      ),
    );
  return h(
    'section',
    {},
    h('h2', {}, 'Add a rule (the body of POST /_sim/faults, checked by the server)'),
    text,
    h('button', { class: 'act', 'data-testid': 'add-fault', onclick: () => void add() }, 'Add rule'),
    h('h2', {}, `Rules (${rules.length})`),
    table(['rule', 'target', 'effect', 'match', 'probability', 'times left', ''], rules, 'faults'),
    h('h2', {}, `Fired (${r.body.fired.length}, newest first)`),
    table(['sim time', 'rule', 'target', 'subject'], fired, 'fired'),
  );
}

async function viewTriggers(): Promise<HTMLElement> {
  const org = currentOrg();
  const res = await fetch('/_sim/ui/triggers.json', { cache: 'no-store' });
  if (!res.ok) return h('div', { class: 'error' }, `the trigger list is not built (HTTP ${res.status})`);
  const list = (await res.json()) as Array<{ name: string; summary: string; new_account_only?: boolean; needs?: Record<string, unknown> }>;
  const base = `${location.origin}/v1`;
  const token = credentials.control_token ? ' --control-token "$SWAPSIM_CONTROL_TOKEN"' : '';
  // The run is read first: whether the Run buttons are enabled follows from its status.
  const panel = org ? await runPanel(org.organization_id) : null;
  const busy = org !== undefined && state.runs.get(org.organization_id)?.status === 'running';
  const rows = list.map((t) =>
    h(
      'tr',
      { 'data-trigger': t.name },
      h('td', { class: 'mono' }, t.name),
      h('td', {}, t.summary, t.needs ? h('span', { class: 'muted' }, ` (needs ${Object.keys(t.needs).join(', ')})`) : ''),
      h(
        'td',
        {},
        h('button', { class: 'act', 'data-testid': 'run-trigger', disabled: !org || busy, onclick: () => void runTrigger(t.name) }, 'Run'),
      ),
      h('td', {}, h('code', { class: 'mono' }, org ? `swapsim trigger ${t.name} --base-url ${base} --api-key ${org.api_key}${token}` : '')),
    ),
  );
  return h(
    'section',
    {},
    h('h2', {}, `Triggers of the scenario library (${list.length})`),
    h(
      'p',
      { class: 'muted' },
      'Run plays one edge case inside the chosen organization with its key, as the command beside it does (its webhook and feed see it, on its own clock if it has one): POST /_sim/ui/triggers/{name}/runs. One run at a time per organization.',
    ),
    panel,
    table(['trigger', 'what it does', '', `command for ${org?.organization_id ?? '(no organization)'}`], rows, 'triggers'),
  );
}

/** Starts a trigger in the chosen organization; a refusal (501 without a runner, 409 while one runs) shows as given. */
async function runTrigger(name: string): Promise<void> {
  const org = currentOrg();
  if (!org) return;
  const r = await client.sim('POST', `/ui/triggers/${encodeURIComponent(name)}/runs`, { organization_id: org.organization_id });
  const details = r.body?.error?.details;
  if (r.status === 202) state.runs.set(org.organization_id, { trigger: name, run_id: r.body.run.run_id, status: r.body.run.status });
  // Another run is under way there: follow that one.
  else if (details?.run_id) state.runs.set(org.organization_id, { trigger: details.trigger, run_id: details.run_id, status: 'running' });
  notice('run-result', r.status === 202 ? null : fail(r));
  await draw();
}

/** The organization's run: its steps as they come, then its verdict, failure line and the whole output. */
async function runPanel(org_id: string): Promise<HTMLElement | null> {
  const mine = state.runs.get(org_id);
  if (!mine) return null;
  const r = await client.sim('GET', `/ui/triggers/${encodeURIComponent(mine.trigger)}/runs/${encodeURIComponent(mine.run_id)}`);
  // A server restarted since forgets its runs: said once, then the page stops asking.
  if (r.status === 404) state.runs.delete(org_id);
  if (r.status !== 200) return fail(r);
  const run = r.body.run;
  mine.status = run.status;
  const tone = run.status === 'passed' ? 'ok' : run.status === 'failed' ? 'bad' : '';
  return h(
    'section',
    { 'data-testid': 'trigger-run', 'data-run': run.run_id, 'data-status': run.status },
    h('h2', {}, `Run ${run.run_id}: ${run.trigger} in ${run.organization_id} `, h('span', { class: `tag ${tone}` }, run.status)),
    run.failure ? h('div', { class: 'error', 'data-testid': 'run-failure' }, run.failure) : null,
    h('pre', { class: 'run', 'data-testid': 'run-output' }, run.output || run.lines.join('\n') || '…'),
  );
}

async function viewConduct(): Promise<HTMLElement> {
  const org = currentOrg();
  if (!org) return h('p', {}, 'No organization yet.');
  const sections: HTMLElement[] = [];
  for (const key of org.api_keys) {
    const r = await client.sim('GET', `/conduct?api_key=${encodeURIComponent(key)}`);
    if (r.status !== 200) return fail(r);
    const c = r.body.conduct;
    const rows = (c.findings as any[]).map((f) =>
      h('tr', {}, h('td', {}, f.kind), h('td', {}, f.message), h('td', { class: 'mono' }, f.request_ids.join(' '))),
    );
    sections.push(
      h(
        'section',
        {},
        h('h2', {}, `Key ${c.api_key}: ${c.requests.length} requests, ${rows.length} findings`),
        table(['finding', 'message', 'requests'], rows, 'conduct'),
      ),
    );
  }
  return h('div', {}, ...sections);
}

async function viewInvariants(): Promise<HTMLElement> {
  const r = await client.sim('GET', '/invariants');
  if (r.status !== 200) return fail(r);
  const rows = (r.body.violations as any[]).map((v) =>
    h('tr', {}, h('td', {}, v.invariant), h('td', { class: 'mono' }, v.entity_id ?? ''), h('td', {}, v.message)),
  );
  return h(
    'section',
    {},
    h(
      'h2',
      {},
      'Invariants ',
      h(
        'span',
        { class: `tag ${r.body.ok ? 'ok' : 'bad'}`, 'data-testid': 'invariants-ok' },
        r.body.ok ? 'ok' : `${rows.length} violations`,
      ),
    ),
    h('p', { class: 'muted' }, `${r.body.checked.length} checks: ${r.body.checked.join(', ')}`),
    r.body.skipped ? h('p', { class: 'muted' }, `skipped: ${(r.body.skipped as any[]).map((s) => s.invariant).join(', ')}`) : null,
    table(['invariant', 'entity', 'message'], rows, 'violations'),
  );
}

// ---- organization mode: one organization's data through /v1 with its key ----

async function viewOrgAccounts(): Promise<HTMLElement> {
  const key = credentials.api_key!;
  const r = await client.v1('GET', `/accounts?limit=${PAGE}${q('cursor', cursorOf('v1-accounts'))}`, key);
  if (r.status !== 200) return fail(r);
  const rows = (r.body.accounts as any[]).map((a) =>
    h(
      'tr',
      {
        class: `pick${a.account_id === state.account ? ' sel' : ''}`,
        'data-account': a.account_id,
        onclick: () => {
          state.account = a.account_id;
          void draw();
        },
      },
      h('td', { class: 'mono' }, a.account_id),
      h('td', {}, a.label ?? ''),
      h('td', {}, a.status),
    ),
  );
  const left = h(
    'section',
    {},
    h('h2', {}, 'Accounts'),
    table(['account', 'label', 'status'], rows, 'accounts'),
    pager('v1-accounts', r.body, rows.length),
  );
  if (!state.account) return h('div', { class: 'cols' }, left, h('p', { class: 'muted' }, 'Pick an account.'));
  const id = encodeURIComponent(state.account);
  const [balances, open, consumed] = await Promise.all([
    client.v1('GET', `/accounts/${id}/balances?limit=100`, key),
    client.v1('GET', `/accounts/${id}/credits?status=open&limit=100`, key),
    client.v1('GET', `/accounts/${id}/credits?status=consumed&limit=100`, key),
  ]);
  for (const x of [balances, open, consumed]) if (x.status !== 200) return fail(x);
  const credit = (c: any) =>
    h(
      'tr',
      { 'data-credit': c.credit_id },
      h('td', { class: 'mono' }, c.credit_id),
      h('td', { class: 'mono' }, `${c.atoms} ${c.asset_key}`),
      h('td', {}, c.status),
      h('td', {}, `${c.source_type} `, h('span', { class: 'mono' }, c.source_id)),
    );
  return h(
    'div',
    { class: 'cols' },
    left,
    h(
      'section',
      {},
      h('h2', {}, 'Balances'),
      table(
        ['asset', 'available', 'pending'],
        (balances.body.balances as any[]).map((b) =>
          h('tr', {}, h('td', { class: 'mono' }, b.asset_key), h('td', {}, b.available_atoms), h('td', {}, b.pending_atoms)),
        ),
        'balances',
      ),
      h('h2', {}, 'Credits'),
      table(['credit', 'amount', 'status', 'came from'], [...open.body.credits, ...consumed.body.credits].map(credit), 'credits'),
    ),
  );
}

/** The organization's event feed, read forward from the feed's own cursor and kept as it grows. */
const feed = { cursor: undefined as string | undefined, events: [] as any[] };

/** Reads the feed forward from its cursor (following has_more): how many events were new, or the refusal. */
async function readFeed(): Promise<number | Awaited<ReturnType<typeof client.v1>>> {
  const key = credentials.api_key!;
  const before = feed.events.length;
  for (;;) {
    const r = await client.v1('GET', `/events?limit=100${q('cursor', feed.cursor)}`, key);
    if (r.status !== 200) return r;
    feed.events.push(...r.body.events);
    if (r.body.next_cursor) feed.cursor = r.body.next_cursor;
    if (!r.body.has_more) return feed.events.length - before;
  }
}

async function viewFeed(): Promise<HTMLElement> {
  const read = await readFeed();
  if (typeof read !== 'number') return fail(read);
  const rows = feed.events
    .slice(-200)
    .reverse()
    .map((e) =>
      h(
        'tr',
        { 'data-event': e.event_id },
        h('td', {}, iso(e.created_at_ms)),
        h('td', {}, e.type),
        h('td', { class: 'mono' }, e.event_id),
        h('td', { class: 'mono' }, e.account_id),
        h('td', { class: 'mono' }, JSON.stringify(e.data)),
      ),
    );
  return h(
    'section',
    {},
    h('h2', {}, `Events (${feed.events.length}, newest first)`),
    table(['created', 'type', 'event', 'account', 'data'], rows, 'feed'),
  );
}

// ---- drawing and live updates ----

const q = (name: string, value: string | undefined): string => (value === undefined ? '' : `&${name}=${encodeURIComponent(value)}`);

const VIEWS: Record<string, () => Promise<HTMLElement>> = {
  world: viewWorld,
  accounts: viewAccounts,
  lifecycles: viewLifecycles,
  webhooks: viewWebhooks,
  faults: viewFaults,
  triggers: viewTriggers,
  conduct: viewConduct,
  invariants: viewInvariants,
};
const ORG_VIEWS: Record<string, () => Promise<HTMLElement>> = { accounts: viewOrgAccounts, feed: viewFeed };

let drawing: Promise<void> | null = null;
/** The last click's time (ms since navigation, the event's own stamp). */
let lastClick_ms = 0;
document.addEventListener(
  'click',
  (e) => {
    lastClick_ms = e.timeStamp;
  },
  { capture: true },
);
let again = false;

/** Redraws the open view; a redraw asked for while one runs happens once after it (never two at once). */
function draw(): Promise<void> {
  if (drawing) {
    again = true;
    return drawing;
  }
  drawing = (async () => {
    try {
      do {
        again = false;
        await drawOnce();
      } while (again);
    } finally {
      // In the same turn as the last check of `again`: a redraw asked for from here on starts a new run.
      drawing = null;
    }
  })();
  return drawing;
}

async function drawOnce(): Promise<void> {
  const started = performance.now();
  const view = (orgMode() ? ORG_VIEWS : VIEWS)[state.tab];
  const el = await view();
  el.setAttribute('data-view', state.tab);
  const main = document.getElementById('view')!;
  // Keep what the user was typing (the fault form) across a live redraw.
  const typed = main.querySelector<HTMLTextAreaElement>('textarea[data-testid="fault-body"]');
  if (typed) sessionStorage.setItem('swapsim.ui.fault', typed.value);
  // A redraw that changes nothing leaves the DOM alone: a row never moves under a pointer about to click it.
  if (main.firstElementChild?.isEqualNode(el)) return;
  main.replaceChildren(el);
  main.setAttribute('data-drawn-ms', String(Math.round(performance.now() - started)));
  main.setAttribute('data-draws', String(Number(main.getAttribute('data-draws') ?? 0) + 1));
  // When the view was on screen (ms since navigation; the frame after the DOM change) and since the last click:
  // what bench:ui reads, a user's wait rather than the harness's own round trips.
  requestAnimationFrame(() => {
    const at = performance.now();
    main.setAttribute('data-painted-at-ms', String(Math.round(at)));
    main.setAttribute('data-since-click-ms', String(Math.round(at - lastClick_ms)));
  });
}

/** Reads the change cursor; when it moved, reloads the organizations and redraws. */
async function poll(): Promise<void> {
  const live = document.getElementById('live')!;
  if (orgMode()) {
    // The feed says when anything changed (one read a poll, from its cursor): a view is redrawn only then, so
    // the Accounts view is live without reading every account's balances each second.
    const fresh = await readFeed();
    live.className = typeof fresh === 'number' ? 'live on' : 'live err';
    if (typeof fresh === 'number' && fresh > 0) await draw();
    return;
  }
  // The first poll reads the organizations at once (the first view needs them): one round trip, not two.
  const first = state.pulse === '' ? client.sim('GET', '/organizations') : null;
  const r = await client.sim('GET', '/ui/pulse');
  if (r.status !== 200) {
    live.className = 'live err';
    if (r.status === 401 || r.status === 403) document.getElementById('view')!.replaceChildren(signIn(errorLine(r)));
    throw new Error(errorLine(r));
  }
  live.className = 'live on';
  // An organization with a clock of its own lives in a world of its own: its clock is shown, its changes redraw.
  const org = ownClock();
  const own = org === null ? null : await client.sim('GET', `/ui/pulse?organization_id=${encodeURIComponent(org)}`);
  await drawBar(own?.status === 200 ? own.body : r.body);
  const cursor = own?.status === 200 ? `${r.body.cursor}|${own.body.cursor}` : r.body.cursor;
  // A trigger run's steps come in while it waits on the clock too (no change in the world): read them each poll.
  const running = state.tab === 'triggers' && state.runs.get(state.org_id)?.status === 'running';
  if (cursor === state.pulse) {
    if (running) await draw();
    return;
  }
  state.pulse = cursor;
  const orgs = await (first ?? client.sim('GET', '/organizations'));
  if (orgs.status === 200) {
    const before = JSON.stringify(state.orgs.map((o) => [o.organization_id, o.api_key]));
    state.orgs = orgs.body.organizations;
    state.orgsFresh = true;
    if (!state.orgs.some((o) => o.organization_id === state.org_id)) state.org_id = state.orgs[0]?.organization_id ?? '';
    // The bar is redrawn only when the organizations changed: what is typed in it (advance ms) stays.
    if (JSON.stringify(state.orgs.map((o) => [o.organization_id, o.api_key])) !== before) drawLevers();
  }
  await draw();
}

/** Whether this server wants its control token (the page's meta tag, set by the server that served it). */
const tokenRequired = (): boolean => document.querySelector('meta[name="swapsim-control"]')?.getAttribute('content') === 'token';

async function start(): Promise<void> {
  if (orgMode()) state.tab = 'accounts';
  drawTabs();
  drawLevers();
  if (!orgMode() && tokenRequired() && !credentials.control_token) {
    document.getElementById('view')!.replaceChildren(signIn('This server requires its control token.'));
    return;
  }
  try {
    if (orgMode()) await draw();
    else await poll();
  } catch {
    return; // the sign-in form is showing
  }
  const tick = async (): Promise<void> => {
    // In organization mode the feed is read from its cursor; otherwise the pulse says when to redraw.
    await poll().catch(() => undefined);
    setTimeout(() => void tick(), POLL_MS);
  };
  setTimeout(() => void tick(), POLL_MS);
}

void start();
