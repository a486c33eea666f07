// The viewer's front end (src/web/viewer.{html,js,css}) in headless Chromium, against a mock of
// `parley view`'s JSON API (docs: the viewer's API in src/web). The mock really filters, sorts
// and pages its fixture, so the test checks both what the page asks for and what it shows; the
// fixture's model text is hostile (script tags, onerror handlers, javascript: links), and the
// page must show it as text and run none of it, under the CSP `parley view` sends.
//
// Run: node --test tests/browser/viewer_ui.test.mjs (playwright-core resolvable, e.g. NODE_PATH).
// Screenshots go to $PARLEY_BROWSER_OUT/screenshots (default /tmp/parley-browser/screenshots).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WEB_DIR = path.resolve(HERE, '../../src/web');
const OUT_DIR = process.env.PARLEY_BROWSER_OUT || '/tmp/parley-browser';
const SHOTS = path.join(OUT_DIR, 'screenshots');
const CHROMIUM = process.env.PARLEY_CHROMIUM || '/usr/bin/chromium';
// The policy `parley view` sends with every page (src/view/request_guard.h).
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; "
  + "base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

// ---------------------------------------------------------------------------------------------
// Fixture: 23 tasks × 4 protocols × 3 seeds = 276 debates, deterministic.

const HOSTILE = {
  script: '<script>window.__pwned=1</script>',
  img: '<img src=x onerror="window.__pwned=2">',
  link: '[x](javascript:window.__pwned=3)',
  svg: '"><svg onload=window.__pwned=4>',
};
const HOSTILE_TASK = 'task-007';
const HOSTILE_AGENT = '<img src=x onerror="window.__pwned=5">';
const PROTOCOLS = ['single', 'debate', 'mad', 'wr'];
const SEEDS = ['1', '2', '18446744073709551615']; // the last one does not fit a double
const METRICS = ['ad', 'prr', 'u_sys'];
const STATUSES = ['completed', 'budget', 'failed'];

function prng(seed) {
  // mulberry32: small, deterministic, good enough for fixture values
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeFixture() {
  const random = prng(17);
  const rows = [];
  for (let task = 0; task < 23; task++) {
    const taskId = `task-${String(task).padStart(3, '0')}`;
    const question = task === 7
      ? `Which is <b>bold</b>? ${HOSTILE.script} Pick one. ${HOSTILE.svg}`
      : `Question ${task}: which capital city lies on the river ${['Ottawa', 'Thames', 'Seine', 'Spree'][task % 4]}? ${'Context sentence. '.repeat(task % 5)}`;
    const options = ['Toronto', 'Ottawa', task === 7 ? HOSTILE.img : 'Paris', 'Berlin'];
    const gold = 'ABCD'[task % 4];
    for (const protocol of PROTOCOLS) {
      for (const seed of SEEDS) {
        const i = rows.length;
        const status = i % 29 === 5 ? 'failed' : i % 17 === 3 ? 'budget' : 'completed';
        const correct = random() < 0.6;
        const initiallyCorrect = protocol === 'single' ? null : random() < 0.65;
        const metrics = { ad: Number(random().toFixed(4)), u_sys: Number(random().toFixed(4)) };
        if (protocol !== 'single') metrics.prr = Number(random().toFixed(4));
        const rounds = protocol === 'single' ? 1 : 3;
        rows.push({
          task_id: taskId, protocol, seed, status, correct,
          initially_correct: initiallyCorrect,
          flipped: initiallyCorrect === true && !correct,
          tokens: 200 + Math.floor(random() * 9000),
          calls: protocol === 'single' ? 1 : 3 + Math.floor(random() * 20),
          rounds,
          latency_ms: Math.round(random() * 40000) / 10,
          final_answer: status === 'failed' ? null : correct ? gold : 'ABCD'[(task + 1) % 4],
          gold, question, options, metrics,
        });
      }
    }
  }
  return rows;
}

const FIXTURE = makeFixture();

function listRow(row, metricNames) {
  const metrics = {};
  for (const name of metricNames) if (name in row.metrics) metrics[name] = row.metrics[name];
  return {
    task_id: row.task_id, protocol: row.protocol, seed: row.seed, status: row.status, correct: row.correct,
    initially_correct: row.initially_correct, flipped: row.flipped, tokens: row.tokens, calls: row.calls,
    rounds: row.rounds, latency_ms: row.latency_ms, final_answer: row.final_answer, gold: row.gold,
    question: row.question.slice(0, 300), metrics,
  };
}

// The calls of one debate, shaped as parley stores them (docs/formats.md, transcripts.jsonl).
function makeTranscript(row) {
  const messages = [];
  const events = [];
  const lastOf = new Map();
  const hostileTask = row.task_id === HOSTILE_TASK;
  const call = (fields) => {
    const id = messages.length;
    const agent = fields.agent;
    const m = {
      id, round: 0, role: 'answer', prompt_tokens: 120 + id, completion_tokens: 40 + id, cached_tokens: id % 3 ? 16 : 0,
      tokens_estimated: false, text: `Reply ${id} of ${agent}.\nAnswer: ${row.gold}\nConfidence: 80%`,
      answer: row.gold, confidence: 0.8, latency_ms: 12.5, attempts: 1, ...fields,
    };
    if (lastOf.has(agent) && !('prompt' in fields)) {
      m.prompt_extends = lastOf.get(agent);
      m.prompt = [{ role: 'user', content: `Round ${m.round}: the other agents said … revise your answer.` }];
    } else if (!('prompt' in fields)) {
      m.prompt = [{ role: 'system', content: 'You are a careful debater.' }, { role: 'user', content: `Question: ${row.question}` }];
    }
    lastOf.set(agent, id);
    messages.push(m);
    return m;
  };
  const hostileText = `Here is my reply.\n${HOSTILE.script}\n${HOSTILE.img}\n${HOSTILE.link}\n${HOSTILE.svg}\n**bold?** no: markdown stays text.\nAnswer: ${row.gold}`;

  if (row.protocol === 'single') {
    call({ agent: 'a1', text: hostileTask ? hostileText : `Single reply.\nAnswer: ${row.gold}` });
  } else if (row.protocol === 'debate') {
    const agents = hostileTask ? ['a1', 'a2', HOSTILE_AGENT] : ['a1', 'a2', 'a3'];
    for (const agent of agents) call({ agent, text: hostileTask && agent === 'a1' ? hostileText : `Initial reply of ${agent}.\nAnswer: ${row.gold}` });
    for (let round = 1; round <= 2; round++) {
      for (const agent of agents) {
        const shown = agents.filter((other) => other !== agent);
        if (round === 1 && agent === 'a2') {
          const first = call({ agent, round, role: 'revise', shown, text: 'I am torn between B and C.', answer: null, confidence: null });
          call({ agent, round, role: 'revise_reask', repeats: first.id, shown, text: `Sorry.\nAnswer: ${row.gold}` });
        } else {
          call({ agent, round, role: 'revise', shown, reasoning: hostileTask ? `thinking ${HOSTILE.script}` : undefined });
        }
      }
    }
    events.push({ round: 2, kind: 'vote', detail: JSON.stringify({ votes: { [row.gold]: 3 }, answer: row.gold, note: hostileTask ? HOSTILE.svg : '' }) });
  } else if (row.protocol === 'mad') {
    call({ agent: 'a1', round: 1, role: 'affirmative' });
    call({ agent: 'a2', round: 1, role: 'negative', shown: ['a1'] });
    call({ agent: 'judge', round: 1, role: 'judge_mad', shown: ['a1', 'a2'], answer: null, confidence: null,
      text: JSON.stringify({ 'Debate Answer': row.gold, Preference: 'Yes', Reason: hostileTask ? HOSTILE.img : 'Both agree.' }) });
    events.push({ round: 1, kind: 'verdict', detail: JSON.stringify({ 'Debate Answer': row.gold, Preference: 'Yes', judge: 'judge' }) });
    events.push({ round: 1, kind: 'stop', detail: JSON.stringify({ answer: row.gold, reason: 'preference', round: 1 }) });
  } else {
    // WR draws the speaking order per debate: here a3 speaks first.
    for (const agent of ['a3', 'a1', 'a2']) call({ agent });
    for (const agent of ['a3', 'a1', 'a2']) {
      call({ agent, round: 1, role: 'draft', shown: ['a1', 'a2', 'a3'].filter((a) => a !== agent) });
      if (agent === 'a3') {
        call({ agent, round: 1, role: 'draft', text: '', answer: null, confidence: null, attempts: 5, error: 'HTTP 500 after 4 retries: upstream overloaded' });
      } else {
        call({ agent, round: 1, role: 'draft', shown: ['a1', 'a2', 'a3'].filter((a) => a !== agent) });
      }
    }
    call({ agent: 'judge', round: 1, role: 'judge_score', answer: null, confidence: null, text: '{"scores": [4, 3]}' });
    events.push({ round: 1, kind: 'best_of', detail: JSON.stringify({ kept: [0, 1, 0], long: 'x'.repeat(300) }) });
    events.push({ round: 1, kind: 'judge', detail: 'plain text detail, not JSON' });
  }
  const sum = (key) => messages.reduce((total, m) => total + m[key], 0);
  return {
    task_id: row.task_id, protocol: row.protocol, seed: Number(row.seed), gold: row.gold, answer_type: 'choice',
    question: row.question, options: row.options,
    final_answer: row.final_answer, correct: row.correct, status: row.status,
    status_reason: row.status === 'failed' ? `a call failed: ${HOSTILE.img}` : row.status === 'budget' ? 'token budget 5000 spent' : '',
    prompt_tokens: sum('prompt_tokens'), completion_tokens: sum('completion_tokens'), calls: messages.length,
    latency_ms: row.latency_ms, wall_ms: 3.5, metrics: row.metrics, events, messages,
  };
}

// ---------------------------------------------------------------------------------------------
// The mock API: the contract `parley view` serves, implemented over the fixture.

function parseRangeParam(value) {
  const parts = value.split(':');
  if (parts.length < 3) return null;
  const max = parts.pop();
  const min = parts.pop();
  return { name: parts.join(':'), min: min === '' ? null : Number(min), max: max === '' ? null : Number(max) };
}

function query(rows, params) {
  let out = rows;
  const eq = (key, get) => {
    const value = params.get(key);
    if (value !== null && value !== '') out = out.filter((r) => get(r) === value);
  };
  eq('protocol', (r) => r.protocol);
  eq('seed', (r) => r.seed);
  eq('status', (r) => r.status);
  eq('correct', (r) => (r.correct ? '1' : '0'));
  if (params.get('flipped') === '1') out = out.filter((r) => r.flipped);
  const ranges = params.getAll('range').map(parseRangeParam);
  if (ranges.some((r) => !r || !METRICS.includes(r.name))) return { error: 'a range names no metric of the run' };
  for (const r of ranges) {
    out = out.filter((row) => {
      const v = row.metrics[r.name];
      return v !== undefined && (r.min === null || v >= r.min) && (r.max === null || v <= r.max);
    });
  }
  const q = (params.get('q') || '').toLowerCase();
  if (q) out = out.filter((r) => r.task_id.toLowerCase().includes(q) || r.question.toLowerCase().includes(q));
  return { rows: out, ranges };
}

const SORTS = {
  task: (r) => r.task_id, protocol: (r) => r.protocol, seed: (r) => BigInt(r.seed), correct: (r) => (r.correct ? 1 : 0),
  tokens: (r) => r.tokens, calls: (r) => r.calls, rounds: (r) => r.rounds, latency: (r) => r.latency_ms,
};

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortRows(rows, sort, order) {
  const unit = (a, b) => compare(a.task_id, b.task_id) || compare(a.protocol, b.protocol) || compare(BigInt(a.seed), BigInt(b.seed));
  if (!sort) return [...rows].sort(unit);
  const sign = order === 'desc' ? -1 : 1;
  let key = SORTS[sort];
  if (sort.startsWith('metric:')) {
    const name = sort.slice(7);
    key = (r) => r.metrics[name];
  }
  return [...rows].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === undefined || y === undefined) return (x === undefined) - (y === undefined) || unit(a, b); // missing last
    return sign * compare(x, y) || unit(a, b);
  });
}

async function startMock() {
  const files = {
    '/': ['viewer.html', 'text/html; charset=utf-8'],
    '/assets/viewer.js': ['viewer.js', 'text/javascript; charset=utf-8'],
    '/assets/viewer.css': ['viewer.css', 'text/css; charset=utf-8'],
  };
  const requests = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push(req.url);
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, {
        'Content-Type': type, 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store',
      });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      if (req.method !== 'GET') return send(405, { error: 'read-only' });
      if (files[url.pathname]) {
        const [name, type] = files[url.pathname];
        return send(200, await readFile(path.join(WEB_DIR, name), 'utf8'), type);
      }
      if (url.pathname === '/report') return send(200, '<!doctype html><title>report</title><h1>report</h1>', 'text/html; charset=utf-8');
      if (url.pathname === '/api/run') {
        return send(200, {
          name: 'fixture-run', simulated: true, debates: FIXTURE.length, protocols: PROTOCOLS, seeds: SEEDS,
          metrics: METRICS, statuses: STATUSES, report: true,
        });
      }
      if (url.pathname === '/api/debates') {
        const p = url.searchParams;
        // As parley view: an unknown or repeated parameter is an error, not ignored.
        for (const key of new Set(p.keys())) {
          if (!['protocol', 'seed', 'correct', 'status', 'flipped', 'range', 'q', 'sort', 'order', 'offset', 'limit'].includes(key)) {
            return send(400, { error: `${key}: unknown parameter`, parameter: key });
          }
          if (key !== 'range' && p.getAll(key).length > 1) return send(400, { error: `${key}: given more than once`, parameter: key });
        }
        if (p.get('q') === 'fail-please') return send(500, { error: 'the store is locked by a test' });
        const offset = Number(p.get('offset') ?? 0);
        const limit = Number(p.get('limit') ?? 50);
        if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > 200) {
          return send(400, { error: 'offset and limit: integers, 1 ≤ limit ≤ 200' });
        }
        const sort = p.get('sort') || '';
        if (sort && !SORTS[sort] && !(sort.startsWith('metric:') && METRICS.includes(sort.slice(7)))) return send(400, { error: `unknown sort ${sort}` });
        const order = p.get('order') || 'asc';
        if (!['asc', 'desc'].includes(order)) return send(400, { error: 'order: asc or desc' });
        const result = query(FIXTURE, p);
        if (result.error) return send(400, { error: result.error });
        const names = [...new Set([...(sort.startsWith('metric:') ? [sort.slice(7)] : []), ...result.ranges.map((r) => r.name)])];
        const sorted = sortRows(result.rows, sort, order);
        return send(200, { total: sorted.length, offset, limit, rows: sorted.slice(offset, offset + limit).map((r) => listRow(r, names)) });
      }
      if (url.pathname === '/api/debate') {
        const p = url.searchParams;
        if ([...p.keys()].some((key) => !['task', 'protocol', 'seed'].includes(key))) return send(400, { error: 'unknown parameter' });
        const row = FIXTURE.find((r) => r.task_id === p.get('task') && r.protocol === p.get('protocol') && r.seed === p.get('seed'));
        if (!row) return send(404, { error: `no debate ${p.get('task')} / ${p.get('protocol')} / seed ${p.get('seed')}` });
        const others = FIXTURE.filter((r) => r.task_id === row.task_id && r.seed === row.seed && r.protocol !== row.protocol);
        return send(200, { transcript: makeTranscript(row), others: others.map((r) => listRow(r, [])) });
      }
      return send(404, { error: `no ${url.pathname}` });
    } catch (error) {
      return send(500, { error: String(error) });
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests, origin: `http://127.0.0.1:${server.address().port}` };
}

// ---------------------------------------------------------------------------------------------
// Browser helpers.

// Collects, for one page: every request the page made, console errors, page errors and CSP
// violations (reported by an init script, which the page's CSP does not govern).
async function openPage(browser, origin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const page = await context.newPage();
  const seen = { requests: [], console: [], errors: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') seen.console.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  return { context, page, seen, origin };
}

async function assertClean({ page, seen, origin }, allowConsole = () => false) {
  const outside = seen.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
  assert.deepEqual(outside, [], 'requests left the mock server');
  const apiOrAsset = seen.requests.filter((u) => u.startsWith(origin)).map((u) => new URL(u).pathname)
    .filter((p) => !['/', '/assets/viewer.js', '/assets/viewer.css', '/report'].includes(p) && !p.startsWith('/api/'));
  assert.deepEqual(apiOrAsset, [], 'requests to paths the viewer does not serve');
  assert.deepEqual(seen.errors, [], 'uncaught page errors');
  assert.deepEqual(seen.console.filter((m) => !allowConsole(m)), [], 'console errors or warnings');
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'CSP violations');
  assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined', 'hostile text ran');
}

async function lastApi(mock, pathname) {
  const hits = mock.requests.filter((u) => u.startsWith(`${pathname}?`) || u === pathname);
  assert.ok(hits.length, `no request to ${pathname}`);
  return new URL(hits.at(-1), 'http://x').searchParams;
}

// Waits for [data-total] to read `expected`, then asserts it (so a wrong total fails with both values).
async function expectTotal(page, expected) {
  await page.waitForFunction((n) => document.querySelector('[data-total]')?.dataset.total === String(n), expected, { timeout: 4000 }).catch(() => {});
  assert.equal(await page.locator('[data-total]').getAttribute('data-total'), String(expected));
}

async function rowsShown(page) {
  return page.locator('tr[data-debate]').count();
}

// Sets an action going and returns the /api/debates request it caused, once the page has shown
// the answer (the table is marked aria-busy from the request until its rows are in).
async function debatesRequest(page, action) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/debates', { timeout: 4000 }),
    action(),
  ]);
  await page.waitForFunction(() => !document.querySelector('table.debates[aria-busy]'), null, { timeout: 4000 });
  return new URL(response.url()).searchParams;
}

function count(predicate) {
  return FIXTURE.filter(predicate).length;
}

// ---------------------------------------------------------------------------------------------

// The sources themselves: no way of turning text into markup or code, nothing inline in the page.
describe('parley view: the front end\'s sources', () => {
  it('use no HTML parsing, eval or inline script and style', async () => {
    const js = await readFile(path.join(WEB_DIR, 'viewer.js'), 'utf8');
    const code = js.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, ''); // comments may name what is banned
    for (const banned of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'javascript:', 'setAttribute(\'on', 'DOMParser', 'createContextualFragment']) {
      assert.ok(!code.includes(banned), `viewer.js uses ${banned}`);
    }
    const html = await readFile(path.join(WEB_DIR, 'viewer.html'), 'utf8');
    assert.deepEqual(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), null, 'inline <script>');
    assert.deepEqual(html.match(/\son[a-z]+\s*=|\sstyle\s*=|<style/gi), null, 'inline handler or style');
    assert.deepEqual([...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]).filter((u) => !/^(\/assets\/|#\/|data:,$)/.test(u)), []);
  });
});

describe('parley view: the front end', () => {
  let mock;
  let browser;

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    mock = await startMock();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => mock?.server.close(resolve));
  });

  it('lists, filters, searches, sorts and pages, with the state in the URL', async () => {
    const session = await openPage(browser, mock.origin);
    const { page } = session;
    await page.goto(`${mock.origin}/#/list`);
    await page.waitForSelector('[data-view="list"] tr[data-debate]');
    await expectTotal(page, FIXTURE.length);
    assert.equal(await rowsShown(page), 50);
    assert.match(await page.locator('.rows-line').innerText(), /rows 1–50 of 276/);
    let p = await lastApi(mock, '/api/debates');
    assert.equal(p.get('offset'), '0');
    assert.equal(p.get('limit'), '50');

    // Protocol, then outcome: each change asks the server with the parameter and from page 1.
    p = await debatesRequest(page, () => page.selectOption('select[name=protocol]', 'debate'));
    assert.equal(p.get('protocol'), 'debate');
    assert.equal(p.get('offset'), '0');
    await expectTotal(page, count((r) => r.protocol === 'debate'));
    p = await debatesRequest(page, () => page.selectOption('select[name=correct]', '0'));
    assert.equal(p.get('protocol'), 'debate');
    assert.equal(p.get('correct'), '0');
    await expectTotal(page, count((r) => r.protocol === 'debate' && !r.correct));
    assert.match(page.url(), /#\/list\?protocol=debate&correct=0$/);
    for (const text of await page.locator('tr[data-debate] td:nth-child(4)').allInnerTexts()) assert.match(text, /wrong|failed/);  // correct=0 holds failed debates, marked failed

    // A metric range: the column appears, and every value shown is within it.
    await page.click('text=+ Add a metric range');
    await page.selectOption('[data-range] select[name=range-metric]', 'prr');
    p = await debatesRequest(page, async () => {
      await page.fill('[data-range] input[name=range-min]', '0.5');
      await page.locator('[data-range] input[name=range-min]').press('Tab');
    });
    assert.deepEqual(p.getAll('range'), ['prr:0.5:']);
    await expectTotal(page, count((r) => r.protocol === 'debate' && !r.correct && r.metrics.prr >= 0.5));
    const prrColumn = await page.locator('table.debates thead th').allInnerTexts();
    const prrIndex = prrColumn.findIndex((t) => t.trim().startsWith('prr'));
    assert.ok(prrIndex > 0, `no prr column in ${prrColumn}`);
    for (const value of await page.locator(`tr[data-debate] td:nth-child(${prrIndex + 1})`).allInnerTexts()) {
      assert.ok(Number(value) >= 0.5, `prr ${value} shown under range prr ≥ 0.5`);
    }

    // Back to all debates, then the text search: typing sends one request, after the pause.
    await debatesRequest(page, () => page.click('text=Clear filters'));
    await expectTotal(page, FIXTURE.length);
    assert.equal(await page.locator('[data-range]').count(), 0);
    // Typed without pauses: a machine under load could otherwise pause past the debounce mid-word.
    const before = mock.requests.length;
    p = await debatesRequest(page, () => page.locator('input[name=q]').pressSequentially('task-01'));
    assert.equal(p.get('q'), 'task-01');
    await expectTotal(page, count((r) => r.task_id.includes('task-01')));
    await page.waitForTimeout(400);
    const searches = mock.requests.slice(before).filter((u) => u.startsWith('/api/debates'));
    assert.equal(searches.length, 1, `typing sent ${searches.join(', ')}`);

    // Sorting by a header: ascending, then descending on the second click.
    p = await debatesRequest(page, () => page.click('th button[data-sort=tokens]'));
    assert.equal(p.get('sort'), 'tokens');
    assert.equal(p.get('order'), 'asc');
    await page.waitForSelector('th[aria-sort=ascending] button[data-sort=tokens]');
    const tokensIndex = (await page.locator('table.debates thead th').allInnerTexts()).findIndex((t) => t.trim().startsWith('Tokens'));
    const tokens = async () => (await page.locator(`tr[data-debate] td:nth-child(${tokensIndex + 1})`).allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
    const ascending = await tokens();
    assert.deepEqual(ascending, [...ascending].sort((a, b) => a - b));
    assert.equal(ascending[0], Math.min(...FIXTURE.filter((r) => r.task_id.includes('task-01')).map((r) => r.tokens)));
    p = await debatesRequest(page, () => page.click('th button[data-sort=tokens]'));
    assert.equal(p.get('order'), 'desc');
    await page.waitForSelector('th[aria-sort=descending] button[data-sort=tokens]');
    const descending = await tokens();
    assert.deepEqual(descending, [...descending].sort((a, b) => b - a));
    assert.notDeepEqual(descending, ascending);

    // Paging over everything: next, last, and the back button.
    await page.locator('input[name=q]').fill('');
    p = await debatesRequest(page, () => page.locator('input[name=q]').press('Enter'));
    assert.equal(p.get('q'), null);
    await expectTotal(page, FIXTURE.length);
    p = await debatesRequest(page, () => page.locator('[data-page=next]').first().click());
    assert.equal(p.get('offset'), '50');
    assert.equal(p.get('sort'), 'tokens');
    await page.waitForFunction(() => /rows 51–100 of/.test(document.querySelector('.rows-line').textContent));
    p = await debatesRequest(page, () => page.locator('[data-page=last]').first().click());
    assert.equal(p.get('offset'), '250');
    await page.waitForFunction(() => /rows 251–276 of 276/.test(document.querySelector('.rows-line').textContent));
    assert.equal(await rowsShown(page), 26);
    assert.equal(await page.locator('[data-page=next]').first().isDisabled(), true);
    p = await debatesRequest(page, () => page.goBack());
    assert.equal(p.get('offset'), '50');
    await page.waitForFunction(() => /rows 51–100 of/.test(document.querySelector('.rows-line').textContent));
    p = await debatesRequest(page, () => page.selectOption('select[name=limit] >> nth=0', '25'));
    assert.equal(p.get('limit'), '25');
    assert.equal(p.get('offset'), '50');
    assert.equal(await rowsShown(page), 25);
    // A new filter on page 3 starts again at the first page.
    p = await debatesRequest(page, () => page.selectOption('select[name=status]', 'budget'));
    assert.equal(p.get('status'), 'budget');
    assert.equal(p.get('offset'), '0');
    assert.equal(p.get('limit'), '25');
    await expectTotal(page, count((r) => r.status === 'budget'));

    // A pause after a space sends the words so far, and the space stays for the next word.
    const search = page.locator('input[name=q]');
    p = await debatesRequest(page, () => search.pressSequentially('capital ', { delay: 30 }));
    assert.equal(p.get('q'), 'capital');
    p = await debatesRequest(page, () => search.pressSequentially('city', { delay: 30 }));
    assert.equal(p.get('q'), 'capital city');
    await expectTotal(page, count((r) => r.status === 'budget' && r.question.includes('capital city')));

    // A linked filtered page opens as it was: controls and request from the URL alone.
    p = await debatesRequest(page, () => page.goto(`${mock.origin}/#/list?protocol=mad&seed=18446744073709551615&flipped=1&range=u_sys::0.5&sort=seed&order=desc&limit=30`));
    assert.equal(p.get('seed'), '18446744073709551615');
    assert.equal(p.get('flipped'), '1');
    assert.deepEqual(p.getAll('range'), ['u_sys::0.5']);
    assert.equal(p.get('limit'), '30');
    assert.equal(await page.inputValue('select[name=limit] >> nth=0'), '30');
    await expectTotal(page, count((r) => r.protocol === 'mad' && r.seed === '18446744073709551615' && r.flipped && r.metrics.u_sys <= 0.5));
    assert.equal(await page.inputValue('select[name=protocol]'), 'mad');
    assert.equal(await page.inputValue('select[name=seed]'), '18446744073709551615');
    assert.equal(await page.isChecked('input[name=flipped]'), true);
    assert.equal(await page.inputValue('[data-range] input[name=range-max]'), '0.5');
    for (const seed of await page.locator('tr[data-debate] td:nth-child(3)').allInnerTexts()) assert.equal(seed, '18446744073709551615');

    await page.goto(`${mock.origin}/#/list?correct=0`);
    await expectTotal(page, count((r) => !r.correct));
    await page.screenshot({ path: path.join(SHOTS, 'viewer-list.png') });
    await assertClean(session);
    await session.context.close();
  });

  it('shows a debate: agents side by side, judges and events in place, what each was shown', async () => {
    const session = await openPage(browser, mock.origin);
    const { page } = session;
    await page.goto(`${mock.origin}/#/list?protocol=debate&q=${HOSTILE_TASK}`);
    await expectTotal(page, 3);
    const listHash = new URL(page.url()).hash;
    await page.click('tr[data-debate] >> nth=0 >> td.task a');
    await page.waitForSelector('[data-view="debate"] [data-call-id]');
    const p = await lastApi(mock, '/api/debate');
    assert.equal(p.get('task'), HOSTILE_TASK);
    assert.equal(p.get('protocol'), 'debate');
    assert.equal(p.get('seed'), '1');

    const transcript = makeTranscript(FIXTURE.find((r) => r.task_id === HOSTILE_TASK && r.protocol === 'debate' && r.seed === '1'));
    // Columns in name order ('<' sorts before 'a'), whatever order the agents spoke in.
    assert.deepEqual(await page.locator('thead th[data-agent]').allInnerTexts(), [HOSTILE_AGENT, 'a1', 'a2']);
    assert.equal(await page.locator('[data-call-id]').count(), transcript.messages.length);
    // Every call in its agent's column and its round's row.
    for (const m of transcript.messages) {
      const cell = page.locator(`tr.round[data-round="${m.round}"] > td`).filter({ has: page.locator(`[data-call-id="${m.id}"]`) });
      assert.equal(await cell.getAttribute('data-agent'), m.agent, `call ${m.id}`);
    }
    const reask = page.locator('[data-call-id="5"]');
    assert.match(await reask.getAttribute('class'), /reask/);
    assert.match(await reask.innerText(), /re-ask/);
    assert.match(await page.locator('[data-call-id="3"]').innerText(), /Shown: a2, <img/);
    assert.match(await page.locator('[data-call-id="4"]').innerText(), /unparsed/);
    assert.match(await page.locator('[data-call-id="0"]').innerText(), /120 in · 40 out · 0 cached/);
    // The vote is in round 2's row, after round 2's calls.
    const voteRow = page.locator('tr.round-extra').filter({ has: page.locator('[data-event-kind=vote]') });
    assert.equal(await voteRow.getAttribute('data-round'), '2');
    // A call's own prompt messages, in a closed <details> until opened.
    const prompt = page.locator('[data-call-id="3"] details.prompt').first();
    assert.equal(await prompt.evaluate((d) => d.open), false);
    await prompt.locator('summary').click();
    assert.match(await prompt.innerText(), /added to call #0's[\s\S]*Round 1: the other agents said/);

    // Hostile text is shown as the characters it is, and nothing of it became markup.
    const body = await page.locator('main').innerText();
    for (const hostile of [...Object.values(HOSTILE), HOSTILE_AGENT, '<b>bold</b>']) assert.ok(body.includes(hostile), `not shown literally: ${hostile}`);
    assert.deepEqual(await page.evaluate(() => ({
      img: document.querySelectorAll('img').length, svg: document.querySelectorAll('svg').length,
      b: document.querySelectorAll('main b').length, iframe: document.querySelectorAll('iframe').length,
      scripts: [...document.scripts].map((s) => s.getAttribute('src')),
      jsLinks: [...document.querySelectorAll('a')].filter((a) => !/^(#\/|\/)/.test(a.getAttribute('href'))).length,
      handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
    })), { img: 0, svg: 0, b: 0, iframe: 0, scripts: ['/assets/viewer.js'], jsLinks: 0, handlers: 0 });
    await page.screenshot({ path: path.join(SHOTS, 'viewer-debate.png'), fullPage: true });

    // The same task under the other protocols; MAD's judge sits in its round, across the columns.
    assert.deepEqual(await page.locator('.others a').allInnerTexts(), ['single', 'mad', 'wr']);
    await page.click('.others a >> text=mad');
    await page.waitForSelector('[data-view="debate"] [data-role="judge_mad"]');
    assert.deepEqual(await page.locator('thead th[data-agent]').allInnerTexts(), ['a1', 'a2']);
    const judge = page.locator('tr.round-extra[data-round="1"] [data-role="judge_mad"]');
    assert.equal(await judge.count(), 1);
    assert.match(await judge.innerText(), /Shown: a1, a2/);
    assert.equal(await page.locator('tr.round-extra[data-round="1"] [data-event-kind]').count(), 2);
    assert.equal(await page.locator('tr.round-extra[data-round="1"] > th > span:not(.visually-hidden)').innerText(), 'judges, events');
    assert.equal(await page.evaluate(() => {
      const judgeRow = document.querySelector('[data-role="judge_mad"]').closest('tr');
      const roundRow = document.querySelector('tr.round[data-round="1"]');
      return roundRow.nextElementSibling === judgeRow;
    }), true, 'the judge row follows its round');

    // WR: a failed draft is marked, and the judge's call is across the columns.
    await page.click('.others a >> text=wr');
    await page.waitForSelector('[data-view="debate"] [data-role="judge_score"]');
    const failed = page.locator('article.call.failed');
    assert.equal(await failed.count(), 1);
    assert.match(await failed.innerText(), /HTTP 500 after 4 retries/);
    assert.match(await failed.innerText(), /5 attempts/);
    assert.equal(await page.locator('td[data-agent] [data-role="judge_score"]').count(), 0);
    assert.deepEqual(await page.locator('thead th[data-agent]').allInnerTexts(), ['a1', 'a2', 'a3']);
    assert.equal(await page.locator('td[data-agent="a3"] [data-call-id="0"]').count(), 1);

    // Back to the list, with its filters.
    const back = page.locator('.crumbs a');
    assert.equal(await back.getAttribute('href'), listHash);
    await back.click();
    await page.waitForSelector('[data-view="list"] tr[data-debate]');
    await expectTotal(page, 3);
    assert.equal(await page.inputValue('select[name=protocol]'), 'debate');
    await assertClean(session);
    await session.context.close();
  });

  it('says what failed when a request fails, and shows the summary', async () => {
    const session = await openPage(browser, mock.origin);
    const { page } = session;
    await page.goto(`${mock.origin}/#/list?q=fail-please`);
    await page.waitForSelector('[role=alert]');
    assert.match(await page.locator('[role=alert]').innerText(), /the store is locked by a test/);
    assert.match(await page.evaluate(() => document.body.dataset.error), /500: the store is locked by a test/);

    await page.goto(`${mock.origin}/#/debate?task=nope&protocol=mad&seed=1`);
    await page.waitForSelector('[data-view="debate"] [role=alert]');
    assert.match(await page.locator('[role=alert]').innerText(), /No debate nope · mad · seed 1/);
    assert.match(await page.evaluate(() => document.body.dataset.error), /404/);

    await page.goto(`${mock.origin}/#/summary`);
    await page.waitForSelector('[data-view="summary"] h1');
    assert.equal(await page.evaluate(() => document.body.dataset.error), undefined);
    const summary = await page.locator('main').innerText();
    assert.match(summary, /fixture-run/);
    assert.match(summary, /SIMULATED/);
    assert.match(summary, /276/);
    assert.equal(await page.locator('a[href="/report"]').count(), 1);
    await assertClean(session, (m) => /Failed to load resource: the server responded with a status of (404|500)/.test(m));
    await session.context.close();
  });
});
