// parley's transcript viewer: the front end of `parley view DIR`.
//
// Three views, chosen by the location hash so that any page can be linked and the back button
// works: #/summary (the run), #/list?<filters> (the debates, one page at a time) and
// #/debate?task=&protocol=&seed=[&back=<the list's query>] (one debate).
//
// Security: everything the API returns — model replies, prompts, questions, task ids, agent
// names — is data, possibly hostile. Every node is made with document.createElement and filled
// with textContent; nothing is parsed as HTML, markdown is not rendered, and the only URLs built
// from data are hashes of this page whose values go through encodeURIComponent. The page runs
// under a CSP without 'unsafe-inline': no inline scripts, handlers or style attributes (styles
// set through element.style are CSSOM and allowed).
//
// Hooks kept stable for the browser tests (tests/browser/viewer_ui.test.mjs): main[data-view] is
// summary | list | debate; list rows tr[data-debate] (the debate's hash); [data-total] holds the
// total as data-total; the filters are controls named as the API's parameters (protocol, seed,
// correct, status, flipped, q, sort, order, limit), a metric range is [data-range] with
// range-metric, range-min and range-max; sort buttons th button[data-sort=KEY]; pager buttons
// [data-page=first|prev|next|last]; on a debate, the agents' column headers thead th[data-agent]
// and cells td[data-agent] in rows tr.round[data-round], judges and events in tr.round-extra,
// each call article[data-call-id][data-role], each event [data-event-kind]; a failed fetch or
// render sets body[data-error] to its message.

const PAGE_SIZES = [25, 50, 100, 200];
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200; // the API's cap
const SEARCH_DEBOUNCE_MS = 300;
const RANGE_DEBOUNCE_MS = 500;
// Calls that are not an agent's turn in the debate: shown across the round, not in a column.
const SIDE_ROLE = /^(judge|moderator|summary)/;
// Columns of the list the API sorts by (besides metric:NAME), with their labels.
const SORT_KEYS = [
  ['task', 'Task'], ['protocol', 'Protocol'], ['seed', 'Seed'], ['correct', 'Outcome'],
  ['tokens', 'Tokens'], ['calls', 'Calls'], ['rounds', 'Rounds'], ['latency', 'Latency'],
];
const REPORT_COMMAND = 'parley report DIR --html DIR/report.html';

// ---------------------------------------------------------------------------------------------
// DOM helpers. el() is the only way nodes are made: text goes in as text nodes, attributes
// through setAttribute, and an "on…" attribute or a style attribute is refused outright.

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (/^on/i.test(key) || key === 'style' || key === 'srcdoc') throw new Error(`el(): attribute ${key} is not allowed`);
    else if (key === 'href') node.setAttribute('href', safeHref(value));
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Links are hashes of this page or paths of this server, nothing else (no javascript:, no hosts).
function safeHref(href) {
  const value = String(href);
  if (value.startsWith('#/') || (value.startsWith('/') && !value.startsWith('//'))) return value;
  throw new Error(`refusing to link to ${value}`);
}

function text(value) {
  return value === null || value === undefined ? '' : String(value);
}

// ---------------------------------------------------------------------------------------------
// Formatting.

const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function formatInt(value) {
  return typeof value === 'number' && Number.isFinite(value) ? integerFormat.format(value) : '—';
}

function formatNumber(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  if (Number.isInteger(value)) return integerFormat.format(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return integerFormat.format(value);
  return String(Number(value.toPrecision(4)));
}

function formatLatency(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '—';
  if (ms >= 10000) return `${formatNumber(ms / 1000)} s`;
  return `${formatNumber(ms)} ms`;
}

function formatConfidence(value) {
  return typeof value === 'number' && Number.isFinite(value) ? `${Math.round(value * 100)}%` : '—';
}

// Option labels as parley writes them: A … Z, then AA, AB, … (docs/formats.md).
function optionLabel(index) {
  let n = index + 1;
  let label = '';
  while (n > 0) {
    n -= 1;
    label = String.fromCharCode(65 + (n % 26)) + label;
    n = Math.floor(n / 26);
  }
  return label;
}

// ---------------------------------------------------------------------------------------------
// Hash routes and query strings. Values are encoded with encodeURIComponent and read back with
// URLSearchParams; repeated keys (range) stay repeated.

function toQuery(pairs) {
  return pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
}

function parseHash() {
  const hash = location.hash.replace(/^#/, '');
  const mark = hash.indexOf('?');
  const path = mark < 0 ? hash : hash.slice(0, mark);
  const params = new URLSearchParams(mark < 0 ? '' : hash.slice(mark + 1));
  const view = path.replace(/^\/+/, '').replace(/\/+$/, '');
  return { view: view || 'summary', params };
}

function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash; // a new history entry; hashchange calls route()
}

// The list's state, exactly the API's parameters (so the hash of a list page is its request).
function listStateFromParams(params) {
  const limit = Number.parseInt(params.get('limit') ?? '', 10);
  const offset = Number.parseInt(params.get('offset') ?? '', 10);
  const order = params.get('order');
  return {
    protocol: params.get('protocol') ?? '',
    seed: params.get('seed') ?? '',
    correct: ['0', '1'].includes(params.get('correct')) ? params.get('correct') : '',
    status: params.get('status') ?? '',
    flipped: params.get('flipped') === '1' ? '1' : '',
    ranges: params.getAll('range').map(parseRange).filter(Boolean),
    q: params.get('q') ?? '',
    sort: params.get('sort') ?? '',
    order: order === 'asc' || order === 'desc' ? order : '',
    offset: Number.isFinite(offset) && offset > 0 ? offset : 0,
    limit: Number.isFinite(limit) && limit > 0 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT,
  };
}

// range=NAME:MIN:MAX; the bounds are the last two fields, so a metric name may hold a colon.
function parseRange(value) {
  const parts = value.split(':');
  if (parts.length < 3) return null;
  const max = parts.pop();
  const min = parts.pop();
  const metric = parts.join(':');
  return metric ? { metric, min, max } : null;
}

function rangeToParam(range) {
  return `${range.metric}:${range.min}:${range.max}`;
}

// Pairs for the hash: defaults left out so that links stay short.
function listStatePairs(state, { withPage = true } = {}) {
  const pairs = [];
  for (const key of ['protocol', 'seed', 'correct', 'status', 'flipped']) if (state[key]) pairs.push([key, state[key]]);
  for (const range of state.ranges) pairs.push(['range', rangeToParam(range)]);
  if (state.q) pairs.push(['q', state.q]);
  if (state.sort) pairs.push(['sort', state.sort]);
  if (state.sort && state.order) pairs.push(['order', state.order]);
  if (withPage && state.offset) pairs.push(['offset', String(state.offset)]);
  if (withPage && state.limit !== DEFAULT_LIMIT) pairs.push(['limit', String(state.limit)]);
  return pairs;
}

// The request: the same pairs, with the page always explicit.
function listApiQuery(state) {
  const pairs = listStatePairs(state, { withPage: false });
  pairs.push(['offset', String(state.offset)], ['limit', String(state.limit)]);
  return toQuery(pairs);
}

function listHash(state) {
  const query = toQuery(listStatePairs(state));
  return query ? `#/list?${query}` : '#/list';
}

function debateHash(row, backQuery) {
  const pairs = [['task', text(row.task_id)], ['protocol', text(row.protocol)], ['seed', text(row.seed)]];
  if (backQuery) pairs.push(['back', backQuery]);
  return `#/debate?${toQuery(pairs)}`;
}

// Metrics the list shows as columns: the one sorted by, then those of the ranges.
function metricColumns(state) {
  const names = [];
  if (state.sort.startsWith('metric:')) names.push(state.sort.slice('metric:'.length));
  for (const range of state.ranges) if (!names.includes(range.metric)) names.push(range.metric);
  return names;
}

// ---------------------------------------------------------------------------------------------
// Fetching. Every failure becomes an Error whose message a reader can act on.

async function fetchJSON(path, signal) {
  const where = path.split('?')[0];
  let response;
  try {
    response = await fetch(path, { signal, headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new Error(`Could not reach the viewer's server for ${where}: is \`parley view\` still running?`);
  }
  const body = await response.text();
  let data = null;
  try {
    data = body ? JSON.parse(body) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const why = data && typeof data.error === 'string' ? data.error : response.statusText || 'no reason given';
    const error = new Error(`${where} answered ${response.status}: ${why}`);
    error.status = response.status;
    throw error;
  }
  if (data === null || typeof data !== 'object') throw new Error(`${where} did not answer with JSON`);
  return data;
}

let runPromise = null;

// /api/run is read once; a failure is not cached, so the next navigation tries again.
function getRun() {
  if (!runPromise) {
    runPromise = fetchJSON('/api/run').catch((error) => {
      runPromise = null;
      throw error;
    });
  }
  return runPromise;
}

// ---------------------------------------------------------------------------------------------
// Errors: shown in the page (role=alert) and on body[data-error] for tests and scripts.

function reportError(message) {
  document.body.dataset.error = message;
}

function clearError() {
  delete document.body.dataset.error;
}

function errorBox(message) {
  return el('div', { className: 'error-box', role: 'alert' }, [el('strong', { text: 'Error: ' }), message]);
}

window.addEventListener('error', (event) => reportError(`script error: ${event.message}`));
window.addEventListener('unhandledrejection', (event) => reportError(`script error: ${event.reason?.message ?? event.reason}`));

// ---------------------------------------------------------------------------------------------
// Layout: the header and the main container.

const main = document.getElementById('view');

function setMain(view, node, title) {
  main.replaceChildren(node);
  main.dataset.view = view;
  document.title = title ? `${title} · parley viewer` : 'parley viewer';
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function renderHeader(run) {
  const slot = document.getElementById('run-name');
  slot.replaceChildren(el('span', { className: 'run-label', text: 'run ' }), el('strong', { text: text(run.name) }));
  if (run.simulated) slot.append(' ', simulatedBadge());
}

function simulatedBadge() {
  return el('span', {
    className: 'badge simulated',
    title: 'Every number of this run comes from parley\'s built-in simulator, not a model.',
    text: 'SIMULATED',
  });
}

function badge(label, kind, title) {
  return el('span', { className: `badge ${kind}`, text: label, title });
}

// A failed debate (an infrastructure error, docs/formats.md) has no outcome to judge: it says so
// rather than "wrong", though the summary counts it as wrong.
// A task without a gold answer (served traffic that gave none) is neither right nor wrong.
function outcomeBadge(correct, status, gold) {
  if (status === 'failed') return badge('failed', 'bad', 'the debate failed (see its status); counted as wrong');
  if (gold === '') return badge('no gold', 'muted', 'the task has no reference answer: not scored');
  return correct ? badge('✓ correct', 'good') : badge('✗ wrong', 'bad');
}

// ---------------------------------------------------------------------------------------------
// Summary view.

function showSummary(run) {
  const protocols = Array.isArray(run.protocols) ? run.protocols : [];
  const seeds = Array.isArray(run.seeds) ? run.seeds : [];
  const metrics = Array.isArray(run.metrics) ? run.metrics : [];
  const statuses = Array.isArray(run.statuses) ? run.statuses : [];

  const facts = el('dl', { className: 'facts' }, [
    el('dt', { text: 'Debates' }), el('dd', { text: formatInt(run.debates) }),
    el('dt', { text: 'Protocols' }),
    el('dd', {}, protocols.length
      ? el('ul', { className: 'inline-list' }, protocols.map((p) =>
        el('li', {}, el('a', { href: listHash({ ...listStateFromParams(new URLSearchParams()), protocol: text(p) }), text: text(p) }))))
      : '—'),
    el('dt', { text: 'Seeds' }), el('dd', { text: seeds.length ? seeds.map(text).join(', ') : '—' }),
    el('dt', { text: 'Statuses' }), el('dd', { text: statuses.length ? statuses.map(text).join(', ') : '—' }),
    el('dt', { text: 'Per-debate metrics' }), el('dd', { text: metrics.length ? metrics.map(text).join(', ') : 'none' }),
  ]);

  const empty = listStateFromParams(new URLSearchParams());
  const shortcuts = el('ul', { className: 'shortcuts' }, [
    el('li', {}, el('a', { href: listHash(empty), text: 'All debates' })),
    el('li', {}, el('a', { href: listHash({ ...empty, correct: '0' }), text: 'Wrong answers' })),
    el('li', {}, el('a', { href: listHash({ ...empty, flipped: '1' }), text: 'Flipped right → wrong' })),
    statuses.includes('failed') ? el('li', {}, el('a', { href: listHash({ ...empty, status: 'failed' }), text: 'Failed debates' })) : null,
  ]);

  // The report is its own self-contained page with its own CSP, served sandboxed (an origin of
  // its own: it cannot reach this page or the API); it is shown here in a frame, and linked.
  const report = run.report
    ? el('div', { className: 'report-embed' }, [
      el('p', {}, [
        el('a', { href: '/report', target: '_blank', rel: 'noopener noreferrer', className: 'button-link', text: 'Open the report in a tab of its own' }),
        ' — the comparison table with confidence intervals, accuracy against tokens and the other plots.',
      ]),
      el('iframe', { src: '/report', title: 'The run\u2019s HTML report', sandbox: 'allow-scripts', className: 'report-frame' }),
    ])
    : el('div', { className: 'note' }, [
      el('p', { text: 'This run has no HTML report yet. Make one with' }),
      el('pre', { className: 'command', text: REPORT_COMMAND }),
      el('p', { text: 'where DIR is the run directory this viewer shows, then reload this page.' }),
    ]);

  const section = el('section', { className: 'summary', 'aria-labelledby': 'summary-title' }, [
    el('h1', { id: 'summary-title', tabindex: '-1' }, ['Run ', el('span', { className: 'run-title', text: text(run.name) })]),
    run.simulated ? el('p', { className: 'note simulated-note' }, [simulatedBadge(), ' Every number of this run comes from parley\'s simulator, not from a model.']) : null,
    facts,
    el('h2', { text: 'Plots and tables' }),
    report,
    el('h2', { text: 'Go to the debates' }),
    shortcuts,
  ]);
  setMain('summary', section, `Run ${text(run.name)}`);
}

// ---------------------------------------------------------------------------------------------
// List view. Its DOM is built once and kept while the reader opens debates, so that going back
// shows the same page at once, with the search box and its focus untouched while typing.

class ListView {
  constructor(run) {
    this.run = run;
    this.state = null; // the state last asked for
    this.shown = null; // the API query of the page on screen
    this.controller = null; // aborts the request in flight when a newer one starts
    this.searchTimer = 0;
    this.rangeTimer = 0;
    this.busyTimer = 0;
    this.build();
  }

  build() {
    const run = this.run;
    const options = (values, anyLabel) => [el('option', { value: '', text: anyLabel }),
      ...values.map((v) => el('option', { value: text(v), text: text(v) }))];
    this.protocol = el('select', { name: 'protocol' }, options(run.protocols ?? [], 'any'));
    this.seed = el('select', { name: 'seed' }, options(run.seeds ?? [], 'any'));
    this.correct = el('select', { name: 'correct' }, [
      el('option', { value: '', text: 'any' }), el('option', { value: '1', text: 'correct' }), el('option', { value: '0', text: 'wrong' }),
    ]);
    this.status = el('select', { name: 'status' }, options(run.statuses ?? [], 'any'));
    this.flipped = el('input', { type: 'checkbox', name: 'flipped', value: '1' });
    this.q = el('input', { type: 'search', name: 'q', placeholder: 'task id or question text', size: '28', autocomplete: 'off' });
    this.sort = el('select', { name: 'sort' }, [
      el('option', { value: '', text: 'default' }),
      ...SORT_KEYS.map(([key, label]) => el('option', { value: key, text: label.toLowerCase() })),
      ...(run.metrics ?? []).map((m) => el('option', { value: `metric:${text(m)}`, text: `metric ${text(m)}` })),
    ]);
    this.order = el('select', { name: 'order' }, [
      el('option', { value: 'asc', text: 'ascending' }), el('option', { value: 'desc', text: 'descending' }),
    ]);
    this.rangeList = el('div', { className: 'range-list' });
    const addRange = el('button', { type: 'button', className: 'small', text: '+ Add a metric range' });
    addRange.addEventListener('click', () => {
      const row = this.rangeRow({ metric: this.run.metrics?.[0] ?? '', min: '', max: '' });
      this.rangeList.append(row);
      row.querySelector('select').focus();
    });
    const clear = el('button', { type: 'button', className: 'small', text: 'Clear filters' });
    clear.addEventListener('click', () => {
      this.q.value = '';
      this.rangeList.replaceChildren();
      go(listHash({ ...listStateFromParams(new URLSearchParams()), limit: this.state?.limit ?? DEFAULT_LIMIT }));
    });

    const field = (label, control) => el('label', { className: 'field' }, [el('span', { text: label }), control]);
    const hasMetrics = (run.metrics ?? []).length > 0;
    this.form = el('form', { className: 'filters', role: 'search', 'aria-label': 'Filter and sort the debates' }, [
      el('div', { className: 'filter-row' }, [
        field('Protocol', this.protocol), field('Seed', this.seed), field('Outcome', this.correct),
        field('Status', this.status),
        el('label', { className: 'field check' }, [this.flipped, el('span', { text: 'flipped right → wrong' })]),
        field('Search', this.q),
      ]),
      el('div', { className: 'filter-row' }, [
        field('Sort by', this.sort), field('Order', this.order),
        hasMetrics ? el('fieldset', { className: 'ranges' }, [el('legend', { text: 'Metric ranges' }), this.rangeList, addRange]) : null,
        clear,
      ]),
    ]);
    this.form.addEventListener('submit', (event) => {
      event.preventDefault(); // Enter in the search box: apply now
      this.apply();
    });
    for (const control of [this.protocol, this.seed, this.correct, this.status, this.flipped, this.sort, this.order]) {
      control.addEventListener('change', () => this.apply());
    }
    // The search waits for a pause in typing: one request per pause, not one per key.
    this.q.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.apply(), SEARCH_DEBOUNCE_MS);
    });

    this.total = el('span', { 'data-total': '' });
    this.rangeText = el('span', { text: 'Loading the debates…' });
    this.summaryLine = el('p', { className: 'rows-line', 'aria-live': 'polite' }, [this.rangeText]);
    this.error = el('div', { className: 'list-error' });
    this.thead = el('thead');
    this.tbody = el('tbody');
    this.table = el('table', { className: 'debates' }, [
      el('caption', { className: 'visually-hidden', text: 'Debates of the run; column headers with a button sort the list' }),
      this.thead, this.tbody,
    ]);
    // A click anywhere on a row opens its debate (the task cell holds the real link).
    this.tbody.addEventListener('click', (event) => {
      const row = event.target.closest('tr[data-debate]');
      if (!row || event.target.closest('a, button') || window.getSelection()?.toString()) return;
      go(row.dataset.debate);
    });
    this.pagerTop = this.pager('Pages');
    this.pagerBottom = this.pager('Pages (bottom)');

    this.root = el('section', { className: 'list', 'aria-labelledby': 'list-title' }, [
      el('h1', { id: 'list-title', tabindex: '-1', text: 'Debates' }),
      this.form,
      el('div', { className: 'list-bar' }, [this.summaryLine, this.pagerTop.root]),
      this.error,
      el('div', { className: 'table-wrap' }, this.table),
      el('div', { className: 'list-bar bottom' }, [this.pagerBottom.root]),
    ]);
  }

  pager(label) {
    const buttons = {};
    const make = (name, caption, title) => {
      const button = el('button', { type: 'button', className: 'small', 'data-page': name, title, text: caption });
      button.addEventListener('click', () => this.page(name));
      buttons[name] = button;
      return button;
    };
    const size = el('select', { name: 'limit' }, PAGE_SIZES.map((n) => el('option', { value: String(n), text: String(n) })));
    size.addEventListener('change', () => {
      const limit = Number(size.value);
      // Keep the first row of the page on screen.
      go(listHash({ ...this.state, limit, offset: Math.floor(this.state.offset / limit) * limit }));
    });
    const root = el('nav', { className: 'pager', 'aria-label': label }, [
      make('first', '« First', 'first page'), make('prev', '‹ Prev', 'previous page'),
      make('next', 'Next ›', 'next page'), make('last', 'Last »', 'last page'),
      el('label', { className: 'field inline' }, [el('span', { text: 'Rows per page' }), size]),
    ]);
    return { root, buttons, size };
  }

  rangeRow(range) {
    const metric = el('select', { name: 'range-metric', 'aria-label': 'metric' },
      (this.run.metrics ?? []).map((m) => el('option', { value: text(m), text: text(m) })));
    metric.value = range.metric;
    const min = el('input', { type: 'number', name: 'range-min', step: 'any', placeholder: 'min', 'aria-label': 'minimum', value: range.min });
    const max = el('input', { type: 'number', name: 'range-max', step: 'any', placeholder: 'max', 'aria-label': 'maximum', value: range.max });
    const remove = el('button', { type: 'button', className: 'small', 'aria-label': 'remove this range', text: '×' });
    const row = el('div', { className: 'range', 'data-range': '' }, [metric, min, el('span', { text: '≤ value ≤' }), max, remove]);
    metric.addEventListener('change', () => this.apply());
    for (const input of [min, max]) {
      input.addEventListener('input', () => {
        clearTimeout(this.rangeTimer);
        this.rangeTimer = setTimeout(() => this.apply(), RANGE_DEBOUNCE_MS);
      });
      input.addEventListener('change', () => this.apply());
    }
    remove.addEventListener('click', () => {
      row.remove();
      this.apply();
    });
    return row;
  }

  // Ranges with a bound: a row being filled in (no bound yet) asks for nothing.
  formRanges() {
    return [...this.rangeList.querySelectorAll('[data-range]')].map((row) => ({
      metric: row.querySelector('[name=range-metric]').value,
      min: row.querySelector('[name=range-min]').value.trim(),
      max: row.querySelector('[name=range-max]').value.trim(),
    })).filter((r) => r.metric && (r.min !== '' || r.max !== ''));
  }

  // The form's controls → a new list hash; any change of filter or order starts at page 1.
  apply() {
    clearTimeout(this.searchTimer);
    clearTimeout(this.rangeTimer);
    this.searchTimer = 0;
    const next = {
      ...this.state,
      protocol: this.protocol.value,
      seed: this.seed.value,
      correct: this.correct.value,
      status: this.status.value,
      flipped: this.flipped.checked ? '1' : '',
      q: this.q.value.trim(),
      ranges: this.formRanges(),
      sort: this.sort.value,
      order: this.sort.value ? this.order.value : '',
      offset: 0,
    };
    if (listHash(next) !== listHash(this.state)) go(listHash(next));
  }

  page(name) {
    const { offset, limit } = this.state;
    const total = this.lastTotal ?? 0;
    const last = total > 0 ? Math.floor((total - 1) / limit) * limit : 0;
    const target = { first: 0, prev: Math.max(0, offset - limit), next: Math.min(last, offset + limit), last }[name];
    if (target !== offset) go(listHash({ ...this.state, offset: target }));
  }

  // Controls follow the URL (back button, a pasted link) except what is being typed right now.
  syncControls(state) {
    this.protocol.value = state.protocol;
    this.seed.value = state.seed;
    this.correct.value = state.correct;
    this.status.value = state.status;
    this.flipped.checked = state.flipped === '1';
    // Not while typing, and not over a value that only differs by the spaces the request drops
    // (the reader may be about to type the next word).
    const typing = document.activeElement === this.q && this.searchTimer;
    if (!typing && this.q.value.trim() !== state.q) this.q.value = state.q;
    this.sort.value = state.sort;
    this.order.value = state.order || 'asc';
    this.order.disabled = !state.sort;
    const wanted = state.ranges.map(rangeToParam).join('\n');
    if (this.formRanges().map(rangeToParam).join('\n') !== wanted) {
      this.rangeList.replaceChildren(...state.ranges.map((r) => this.rangeRow(r)));
    }
    for (const pager of [this.pagerTop, this.pagerBottom]) {
      if (!PAGE_SIZES.includes(state.limit) && !pager.size.querySelector(`option[value="${state.limit}"]`)) {
        pager.size.append(el('option', { value: String(state.limit), text: String(state.limit) })); // a linked page size
      }
      pager.size.value = String(state.limit);
    }
    // A value the run does not list (an old link) still shows, as its own option.
    for (const [select, value] of [[this.protocol, state.protocol], [this.seed, state.seed], [this.status, state.status], [this.sort, state.sort]]) {
      if (value && select.value !== value) {
        select.append(el('option', { value, text: value }));
        select.value = value;
      }
    }
  }

  async show(state) {
    this.state = state;
    this.syncControls(state);
    const query = listApiQuery(state);
    if (query === this.shown && !this.error.firstChild) return; // the page on screen (back from a debate)
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    // Rows stay on screen while the next page loads; they dim only if it takes a moment.
    clearTimeout(this.busyTimer);
    this.busyTimer = setTimeout(() => this.table.classList.add('busy'), 150);
    this.table.setAttribute('aria-busy', 'true');
    try {
      const data = await fetchJSON(`/api/debates?${query}`, controller.signal);
      if (controller !== this.controller) return;
      this.render(state, data);
      this.shown = query;
      this.error.replaceChildren();
      clearError();
    } catch (error) {
      if (error.name === 'AbortError' || controller !== this.controller) return;
      this.shown = null;
      this.error.replaceChildren(errorBox(`could not load the debates. ${error.message}`));
      this.tbody.replaceChildren();
      this.total.textContent = '?';
      this.rangeText.replaceChildren('No rows: the request failed.');
      reportError(error.message);
    } finally {
      if (controller === this.controller) {
        clearTimeout(this.busyTimer);
        this.table.classList.remove('busy');
        this.table.removeAttribute('aria-busy');
      }
    }
  }

  render(state, data) {
    const rows = Array.isArray(data.rows) ? data.rows : [];
    const total = Number.isFinite(data.total) ? data.total : rows.length;
    const offset = Number.isFinite(data.offset) ? data.offset : state.offset;
    const limit = Number.isFinite(data.limit) && data.limit > 0 ? data.limit : state.limit;
    this.lastTotal = total;
    const metrics = metricColumns(state);
    this.renderHead(state, metrics);

    const back = toQuery(listStatePairs(state));
    this.tbody.replaceChildren(...rows.map((row) => this.renderRow(row, metrics, back)));
    if (rows.length === 0) {
      const columns = SORT_KEYS.length + 4 + metrics.length;
      this.tbody.append(el('tr', { className: 'empty' }, el('td', { colspan: String(columns),
        text: total === 0 ? 'No debate matches these filters.' : 'No rows on this page: go to the first page.' })));
    }

    this.total.textContent = formatInt(total);
    this.total.dataset.total = String(total);
    const from = rows.length ? offset + 1 : 0;
    const to = offset + rows.length;
    this.rangeText.replaceChildren(rows.length ? `rows ${formatInt(from)}–${formatInt(to)} of ` : 'rows 0 of ', this.total);
    for (const pager of [this.pagerTop, this.pagerBottom]) {
      pager.buttons.first.disabled = offset === 0;
      pager.buttons.prev.disabled = offset === 0;
      pager.buttons.next.disabled = offset + limit >= total;
      pager.buttons.last.disabled = offset + limit >= total;
    }
  }

  renderHead(state, metrics) {
    const sortable = (key, label, numeric) => {
      const active = state.sort === key;
      const order = active ? (state.order || 'asc') : '';
      const button = el('button', { type: 'button', className: 'sort', 'data-sort': key }, [
        label, el('span', { className: 'sort-mark', 'aria-hidden': 'true', text: order === 'asc' ? ' ▲' : order === 'desc' ? ' ▼' : '' }),
      ]);
      button.addEventListener('click', () => {
        // A second click on the sorted column reverses it; a new column starts ascending.
        const nextOrder = active && order === 'asc' ? 'desc' : 'asc';
        go(listHash({ ...state, sort: key, order: nextOrder, offset: 0 }));
      });
      return el('th', {
        scope: 'col', className: numeric ? 'num' : null,
        'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : 'none',
      }, button);
    };
    const plain = (label, className) => el('th', { scope: 'col', className, text: label });
    this.thead.replaceChildren(el('tr', {}, [
      sortable('task', 'Task'), sortable('protocol', 'Protocol'), sortable('seed', 'Seed', true),
      sortable('correct', 'Outcome'), plain('Final'), plain('Gold'), plain('Status'),
      sortable('tokens', 'Tokens', true), sortable('calls', 'Calls', true), sortable('rounds', 'Rounds', true),
      sortable('latency', 'Latency', true),
      ...metrics.map((m) => sortable(`metric:${m}`, m, true)),
      plain('Question', 'question'),
    ]));
  }

  renderRow(row, metrics, back) {
    const hash = debateHash(row, back);
    const outcome = el('td', {}, [outcomeBadge(row.correct === true, row.status, row.gold)]);
    if (row.flipped === true) outcome.append(' ', badge('flipped', 'warn', 'right at first, wrong at the end'));
    const status = text(row.status);
    const question = text(row.question);
    const values = row.metrics && typeof row.metrics === 'object' ? row.metrics : {};
    return el('tr', { 'data-debate': hash }, [
      el('td', { className: 'task' }, el('a', { href: hash, text: text(row.task_id) })),
      el('td', { text: text(row.protocol) }),
      el('td', { className: 'num', text: text(row.seed) }),
      outcome,
      el('td', { className: 'answer', text: row.final_answer === null || row.final_answer === undefined ? '—' : text(row.final_answer), title: row.final_answer === null ? 'unparsed' : null }),
      el('td', { className: 'answer', text: text(row.gold) }),
      el('td', {}, status === 'completed' ? status : badge(status, status === 'failed' ? 'bad' : 'warn')),
      el('td', { className: 'num', text: formatInt(row.tokens) }),
      el('td', { className: 'num', text: formatInt(row.calls) }),
      el('td', { className: 'num', text: formatInt(row.rounds) }),
      el('td', { className: 'num', text: formatLatency(row.latency_ms) }),
      ...metrics.map((m) => el('td', { className: 'num', text: formatNumber(values[m]) })),
      el('td', { className: 'question', title: question, text: question.replace(/\s+/g, ' ') }),
    ]);
  }
}

let listView = null;

function showList(run, params) {
  if (!listView || listView.run !== run) listView = new ListView(run);
  const state = listStateFromParams(params);
  if (main.firstChild !== listView.root) setMain('list', listView.root, 'Debates');
  // The header's "Debates" returns to this list as filtered, like the back link of a debate.
  document.querySelector('[data-nav=list]')?.setAttribute('href', listHash(state));
  listView.show(state);
}

// ---------------------------------------------------------------------------------------------
// Debate view.

let debateController = null;

async function showDebate(run, params, token) {
  const task = params.get('task');
  const protocol = params.get('protocol');
  const seed = params.get('seed');
  const back = params.get('back') ?? '';
  const backLink = el('p', { className: 'crumbs' }, el('a', { href: back ? `#/list?${back}` : '#/list', text: '← Back to the debates' }));
  if (!task || !protocol || !seed) {
    const message = 'A debate link needs task, protocol and seed.';
    setMain('debate', el('section', {}, [backLink, errorBox(message)]), 'Debate');
    reportError(message);
    return;
  }
  debateController?.abort();
  const controller = new AbortController();
  debateController = controller;
  setMain('debate', el('section', { className: 'debate' }, [backLink, el('p', { className: 'loading', text: `Loading ${task} · ${protocol} · seed ${seed}…` })]), task);
  let data;
  try {
    data = await fetchJSON(`/api/debate?${toQuery([['task', task], ['protocol', protocol], ['seed', seed]])}`, controller.signal);
  } catch (error) {
    if (error.name === 'AbortError' || token !== routeToken) return;
    const message = error.status === 404 ? `No debate ${task} · ${protocol} · seed ${seed} in this run (${error.message}).` : `Could not load the debate. ${error.message}`;
    setMain('debate', el('section', { className: 'debate' }, [backLink, errorBox(message)]), task);
    reportError(message);
    return;
  }
  if (token !== routeToken) return;
  const t = data.transcript && typeof data.transcript === 'object' ? data.transcript : {};
  const others = Array.isArray(data.others) ? data.others : [];
  // The seed comes from the link: a 64-bit seed read as a JSON number may have lost digits.
  const page = renderDebate(run, t, { task, protocol, seed }, others, back, backLink);
  setMain('debate', page, `${task} · ${protocol}`);
  page.querySelector('h1').focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function renderDebate(run, t, unit, others, back, backLink) {
  const messages = Array.isArray(t.messages) ? t.messages : [];
  const events = Array.isArray(t.events) ? t.events : [];
  const byId = new Map(messages.map((m) => [m.id, m]));

  const title = el('h1', { tabindex: '-1' }, [
    el('span', { className: 'task-id', text: unit.task }),
    el('span', { className: 'unit', text: ` · ${unit.protocol} · seed ${unit.seed}` }),
  ]);

  // The task: question, options, gold.
  const taskPart = el('section', { className: 'panel task-panel', 'aria-labelledby': 'task-title' }, [
    el('h2', { id: 'task-title', text: 'Task' }),
    typeof t.question === 'string'
      ? el('pre', { className: 'text question-text', text: t.question })
      : el('p', { className: 'muted', text: 'This transcript does not store the question.' }),
    Array.isArray(t.options) && t.options.length
      ? el('ol', { className: 'options' }, t.options.map((option, i) => el('li', {}, [
        el('span', { className: 'option-label', text: optionLabel(i) }), ' ', el('span', { text: text(option) }),
      ])))
      : null,
    el('p', { className: 'gold' }, ['Gold: ', el('strong', { className: 'answer', text: text(t.gold) }),
      t.answer_type ? el('span', { className: 'muted', text: ` (${text(t.answer_type)})` }) : null]),
  ]);

  // The outcome.
  const status = text(t.status);
  const totalPrompt = typeof t.prompt_tokens === 'number' ? t.prompt_tokens : sum(messages, 'prompt_tokens');
  const totalCompletion = typeof t.completion_tokens === 'number' ? t.completion_tokens : sum(messages, 'completion_tokens');
  const outcome = el('section', { className: 'panel outcome-panel', 'aria-labelledby': 'outcome-title' }, [
    el('h2', { id: 'outcome-title', text: 'Outcome' }),
    el('dl', { className: 'facts' }, [
      el('dt', { text: 'Final answer' }),
      el('dd', {}, t.final_answer === null || t.final_answer === undefined
        ? el('span', { className: 'muted', text: 'none (unparsed)' }) : el('strong', { className: 'answer', text: text(t.final_answer) })),
      el('dt', { text: 'Correct' }), el('dd', {}, outcomeBadge(t.correct === true, t.status, t.gold)),
      el('dt', { text: 'Status' }),
      el('dd', {}, [status === 'completed' ? status : badge(status, status === 'failed' ? 'bad' : 'warn'),
        t.status_reason ? el('span', { className: 'reason', text: ` — ${text(t.status_reason)}` }) : null]),
      el('dt', { text: 'Tokens' }), el('dd', { text: `${formatInt(totalPrompt)} prompt · ${formatInt(totalCompletion)} completion` }),
      el('dt', { text: 'Calls' }), el('dd', { text: formatInt(typeof t.calls === 'number' ? t.calls : messages.length) }),
      el('dt', { text: 'Latency' }), el('dd', { text: formatLatency(t.latency_ms) }),
    ]),
    run.simulated ? el('p', {}, simulatedBadge()) : null,
  ]);

  // The same task and seed under the other protocols.
  const othersPart = el('section', { className: 'panel others-panel', 'aria-labelledby': 'others-title' }, [
    el('h2', { id: 'others-title', text: 'Other protocols' }),
    others.length
      ? el('ul', { className: 'others' }, others.map((row) => el('li', {}, [
        el('a', { href: debateHash({ ...row, task_id: row.task_id ?? unit.task, seed: row.seed ?? unit.seed }, back), text: text(row.protocol) }),
        ' ', outcomeBadge(row.correct === true, row.status, row.gold),
        el('span', { className: 'muted', text: ` ${row.final_answer === null || row.final_answer === undefined ? 'unparsed' : text(row.final_answer)} · ${formatInt(row.tokens)} tokens` }),
      ])))
      : el('p', { className: 'muted', text: 'No other protocol ran this task with this seed.' }),
  ]);

  const roundsPart = el('section', { className: 'rounds-section', 'aria-labelledby': 'rounds-title' }, [
    el('h2', { id: 'rounds-title', text: 'Rounds' }),
    messages.length || events.length ? renderRounds(messages, events, byId)
      : el('p', { className: 'muted', text: 'No call or event was recorded.' }),
  ]);

  const metrics = t.metrics && typeof t.metrics === 'object' ? Object.entries(t.metrics) : [];
  metrics.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const metricsPart = el('section', { className: 'metrics-section', 'aria-labelledby': 'metrics-title' }, [
    el('h2', { id: 'metrics-title', text: 'Metrics' }),
    metrics.length
      ? el('table', { className: 'metrics' }, [
        el('thead', {}, el('tr', {}, [el('th', { scope: 'col', text: 'metric' }), el('th', { scope: 'col', className: 'num', text: 'value' })])),
        el('tbody', {}, metrics.map(([name, value]) => el('tr', {}, [
          el('th', { scope: 'row', text: name }), el('td', { className: 'num', text: formatNumber(value) }),
        ]))),
      ])
      : el('p', { className: 'muted', text: 'No metric is defined for this debate.' }),
  ]);

  return el('article', { className: 'debate', 'aria-labelledby': 'debate-title' }, [
    backLink,
    el('header', { className: 'debate-title', id: 'debate-title' }, title),
    el('div', { className: 'debate-head' }, [taskPart, outcome, othersPart]),
    roundsPart,
    metricsPart,
  ]);
}

function sum(items, key) {
  return items.reduce((total, item) => total + (typeof item[key] === 'number' ? item[key] : 0), 0);
}

function isSideCall(message) {
  const role = text(message.role);
  return SIDE_ROLE.test(role) || role === 'embedding';
}

// Rounds × agents: one row per round, one column per debating agent (in the order they first
// speak); judge, moderator and summary calls and the round's controller events in a row across
// the columns under the round they belong to.
function renderRounds(messages, events, byId) {
  // Agents in name order (a1, a2, …, a10), not speaking order: some protocols draw the order
  // per debate, and the same agent should sit in the same column in every debate.
  const agents = [...new Set(messages.filter((m) => !isSideCall(m)).map((m) => text(m.agent)))]
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const rounds = [...new Set([...messages.map((m) => m.round), ...events.map((e) => e.round)])]
    .filter((r) => Number.isInteger(r)).sort((a, b) => a - b);

  const head = el('thead', {}, el('tr', {}, [
    el('th', { scope: 'col', className: 'round-col', text: 'Round' }),
    ...agents.map((agent) => el('th', { scope: 'col', 'data-agent': agent, text: agent })),
  ]));
  const body = el('tbody');
  for (const round of rounds) {
    const inRound = messages.filter((m) => m.round === round);
    const turns = inRound.filter((m) => !isSideCall(m));
    const side = inRound.filter(isSideCall);
    const roundEvents = events.filter((e) => e.round === round);
    if (turns.length) {
      body.append(el('tr', { className: 'round', 'data-round': String(round) }, [
        el('th', { scope: 'row', className: 'round-col', text: `Round ${round}` }),
        ...agents.map((agent) => {
          const calls = turns.filter((m) => text(m.agent) === agent);
          return el('td', { 'data-agent': agent }, calls.length
            ? calls.map((m) => renderCall(m, byId, false)) : el('p', { className: 'muted', text: 'no call' }));
        }),
      ]));
    }
    if (side.length || roundEvents.length) {
      body.append(el('tr', { className: 'round-extra', 'data-round': String(round) }, [
        el('th', { scope: 'row', className: 'round-col' }, [el('span', { className: 'visually-hidden', text: `Round ${round}: ` }),
          el('span', { text: sideLabel(side, roundEvents) })]),
        el('td', { colspan: String(Math.max(agents.length, 1)) }, [
          side.length ? el('div', { className: 'side-calls' }, side.map((m) => renderCall(m, byId, true))) : null,
          roundEvents.length ? el('ul', { className: 'events', 'aria-label': `Events of round ${round}` }, roundEvents.map(renderEvent)) : null,
        ]),
      ]));
    }
  }
  const table = el('table', { className: 'rounds' }, [
    el('caption', { className: 'visually-hidden', text: 'Each round\'s calls, one column per agent' }), head, body,
  ]);
  // Columns keep a readable width: many agents scroll sideways rather than squeeze.
  table.style.minWidth = `${6 + Math.max(agents.length, 1) * 18}rem`;
  return el('div', { className: 'table-wrap rounds-wrap' }, table);
}

// What the row across the columns holds, e.g. "judges, events".
function sideLabel(side, events) {
  const kinds = [];
  const add = (kind) => { if (!kinds.includes(kind)) kinds.push(kind); };
  for (const m of side) {
    const role = text(m.role);
    add(role === 'embedding' ? 'embeddings' : role.startsWith('judge') ? 'judges' : role.startsWith('moderator') ? 'moderator' : 'summaries');
  }
  if (events.length) add('events');
  return kinds.join(', ');
}

function callButton(id, label, byId) {
  const target = byId.get(id);
  if (!target) return el('span', { text: `${label} #${text(id)}` });
  const button = el('button', { type: 'button', className: 'link', text: `${label} #${id}` });
  button.addEventListener('click', () => {
    const card = document.getElementById(`call-${id}`);
    if (!card) return;
    card.scrollIntoView({ block: 'center' });
    card.focus({ preventScroll: true });
    card.classList.add('flash');
    setTimeout(() => card.classList.remove('flash'), 1200);
  });
  return button;
}

function renderCall(m, byId, side) {
  const role = text(m.role);
  const reask = m.repeats !== undefined && m.repeats !== null || /reask$/.test(role);
  const failed = typeof m.error === 'string' && m.error !== '';
  const id = Number.isInteger(m.id) ? m.id : null;
  const badges = [];
  if (reask) badges.push(badge('re-ask', 'warn', 'asked again because the previous reply had no parsable answer'));
  if (failed) badges.push(badge('error', 'bad'));
  if (m.tokens_estimated === true) badges.push(badge('estimated tokens', 'warn', 'the server gave no believable usage: parley estimated the counts'));
  if (typeof m.attempts === 'number' && m.attempts > 1) badges.push(badge(`${m.attempts} attempts`, 'warn'));

  const header = el('header', { className: 'call-head' }, [
    side ? el('strong', { className: 'call-agent', text: text(m.agent) }) : null,
    el('span', { className: 'role', text: role }),
    el('span', { className: 'call-id', text: id === null ? '' : `#${id}` }),
    ...badges,
    reask && Number.isInteger(m.repeats) ? callButton(m.repeats, 'repeats', byId) : null,
  ]);

  // A judge's or summary's call answers nothing of its own: no answer there is not "unparsed".
  const answer = m.answer === null || m.answer === undefined
    ? el('span', { className: 'muted', text: failed || side ? '—' : 'unparsed' }) : el('strong', { className: 'answer', text: text(m.answer) });
  const facts = el('dl', { className: 'call-facts' }, [
    el('div', {}, [el('dt', { text: 'answer' }), el('dd', {}, answer)]),
    el('div', {}, [el('dt', { text: 'confidence' }), el('dd', { text: formatConfidence(m.confidence) })]),
    el('div', { title: 'prompt / completion / cached tokens' }, [el('dt', { text: 'tokens' }),
      el('dd', { text: `${formatInt(m.prompt_tokens)} in · ${formatInt(m.completion_tokens)} out · ${formatInt(m.cached_tokens ?? 0)} cached` })]),
  ]);

  const embedding = role === 'embedding';
  const shown = embedding ? null : Array.isArray(m.shown) && m.shown.length
    ? el('p', { className: 'shown' }, [el('span', { className: 'label', text: 'Shown: ' }),
      el('span', { 'data-shown': '', text: m.shown.map(text).join(', ') })])
    : el('p', { className: 'shown muted' }, [el('span', { className: 'label', text: 'Shown: ' }), 'no other agent (an independent turn)']);

  return el('article', {
    className: `call${reask ? ' reask' : ''}${failed ? ' failed' : ''}${side ? ' side' : ''}`,
    'data-call-id': id === null ? '' : String(id),
    'data-role': role,
    id: id === null ? null : `call-${id}`,
    tabindex: '-1',
  }, [
    header,
    facts,
    failed ? el('p', { className: 'call-error' }, [el('strong', { text: 'Error: ' }), text(m.error)]) : null,
    m.text ? el('pre', { className: 'text reply' }, text(m.text)) : (failed ? null : el('p', { className: 'muted', text: '(empty reply)' })),
    typeof m.reasoning === 'string' && m.reasoning
      ? el('details', { className: 'reasoning' }, [el('summary', { text: 'Reasoning' }), el('pre', { className: 'text', text: m.reasoning })]) : null,
    Array.isArray(m.warnings) && m.warnings.length
      ? el('ul', { className: 'warnings', 'aria-label': 'warnings' }, m.warnings.map((w) => el('li', { text: text(w) }))) : null,
    shown,
    embedding ? null : renderPrompt(m, byId), // an embeddings call sends texts, not a chat prompt
  ]);
}

// The messages this call added to its agent's conversation (docs/formats.md: prompt and
// prompt_extends), and on request the whole prompt, rebuilt by following the links back.
function renderPrompt(m, byId) {
  if (!Array.isArray(m.prompt)) {
    return el('p', { className: 'muted prompt-none', text: 'Prompt not stored.' });
  }
  const extendsId = Number.isInteger(m.prompt_extends) ? m.prompt_extends : null;
  const count = m.prompt.length;
  const label = extendsId === null
    ? `Prompt (${count} message${count === 1 ? '' : 's'})`
    : count === 0 ? `Prompt (the same as call #${extendsId})` : `Prompt (${count} message${count === 1 ? '' : 's'} added to call #${extendsId}'s)`;
  const details = el('details', { className: 'prompt' }, [
    el('summary', { text: label }),
    extendsId !== null ? el('p', { className: 'prompt-link' }, callButton(extendsId, 'go to call', byId)) : null,
    ...m.prompt.map(promptMessage),
  ]);
  if (extendsId === null) return details;
  // The whole prompt is built only when opened: a long debate's calls repeat long histories.
  const whole = el('details', { className: 'prompt whole' }, el('summary', { text: 'Whole prompt' }));
  whole.addEventListener('toggle', () => {
    if (!whole.open || whole.dataset.built) return;
    whole.dataset.built = '1';
    const chain = [];
    let current = m;
    const seen = new Set();
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      chain.unshift(...(Array.isArray(current.prompt) ? current.prompt : []));
      const next = Number.isInteger(current.prompt_extends) && current.prompt_extends < current.id ? byId.get(current.prompt_extends) : null;
      if (Number.isInteger(current.prompt_extends) && !next) {
        chain.unshift({ role: 'note', content: `(call #${current.prompt_extends}'s prompt is missing)` });
      }
      current = next;
    }
    whole.append(...chain.map(promptMessage));
  });
  return el('div', { className: 'prompts' }, [details, whole]);
}

function promptMessage(message) {
  return el('div', { className: 'prompt-message' }, [
    el('p', { className: 'prompt-role', text: text(message?.role) }),
    el('pre', { className: 'text', text: text(message?.content) }),
  ]);
}

// An event's detail is text, usually JSON: a short one shows on its line, a long one folds.
function renderEvent(event) {
  const kind = text(event.kind);
  const detail = text(event.detail);
  let pretty = detail;
  let structured = false;
  try {
    const parsed = JSON.parse(detail);
    if (parsed && typeof parsed === 'object') {
      pretty = JSON.stringify(parsed, null, 2);
      structured = true;
    }
  } catch {
    // not JSON: shown as written
  }
  const oneLine = detail.replace(/\s+/g, ' ');
  const item = el('li', { className: 'event', 'data-event-kind': kind });
  if (oneLine.length <= 160) {
    item.append(el('span', { className: 'event-kind', text: kind }), ' ', el('code', { className: 'event-detail', text: oneLine }));
  } else {
    item.append(el('details', {}, [
      el('summary', {}, [el('span', { className: 'event-kind', text: kind }), ' ', el('code', { className: 'event-detail', text: `${oneLine.slice(0, 140)}…` })]),
      el('pre', { className: structured ? 'text code' : 'text', text: pretty }),
    ]));
  }
  return item;
}

// ---------------------------------------------------------------------------------------------
// The router.

let routeToken = 0;

async function route() {
  const token = ++routeToken;
  const { view, params } = parseHash();
  clearError();
  if (view !== 'debate') debateController?.abort();
  let run;
  try {
    run = await getRun();
  } catch (error) {
    if (token !== routeToken) return;
    const message = `Could not load the run. ${error.message}`;
    setMain(['list', 'debate'].includes(view) ? view : 'summary', el('section', {}, [el('h1', { text: 'parley viewer' }), errorBox(message)]), 'Error');
    reportError(message);
    return;
  }
  if (token !== routeToken) return;
  try {
    renderHeader(run);
    if (view === 'list') showList(run, params);
    else if (view === 'debate') await showDebate(run, params, token);
    else if (view === 'summary') showSummary(run);
    else {
      const message = `There is no page "${view}" in the viewer.`;
      setMain('summary', el('section', {}, [el('h1', { text: 'Not found' }), errorBox(message),
        el('p', {}, el('a', { href: '#/summary', text: 'Go to the summary' }))]), 'Not found');
      reportError(message);
    }
  } catch (error) {
    // A render that throws (data of an unexpected shape) says so instead of leaving a blank page.
    const message = `Could not show this page: ${error.message}`;
    main.replaceChildren(errorBox(message));
    reportError(message);
  }
}

window.addEventListener('hashchange', route);
route();
