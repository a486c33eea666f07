// `parley view DIR` end to end (issue 17): the real binary serves a real run to a real browser.
// The hostile run (fake_backend.mjs: replies, questions, task ids, answers and a protocol label
// full of markup) is listed, filtered, paged and opened; the simulated run's report is served
// at /report. Nothing from model text runs, no request leaves localhost, the API key appears in
// no response, and the server refuses paths outside DIR.
//
// viewer_ui.test.mjs checks the front end alone against a mock of the API; this file checks the
// two together, on the server's real answers.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { assertPageClean, closeBrowser, launchBrowser, openPage } from './lib/browser.mjs';
import { readTasks } from './lib/fake_backend.mjs';
import { apiKeySecret, injectedMarkup } from './lib/hostile.mjs';
import { hostileTasksFile, outputDir, parleyBin, runHostile, runSimulated, scratchDir } from './lib/parley.mjs';

const screenshotDir = path.join(outputDir, 'screenshots');
const tasks = readTasks(hostileTasksFile);

// Starts `parley view DIR --port 0`; resolves to { url, process, close() } once it prints where
// it serves.
function startViewer(dir, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(parleyBin, ['view', dir, '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parley view printed no address in 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (!found) return;
      clearTimeout(timer);
      resolve({
        url: found[0],
        child,
        close: () => new Promise((done) => {
          if (child.exitCode !== null) return done(child.exitCode);
          child.once('exit', (code) => done(code));
          child.kill('SIGINT');
        }),
      });
    });
    child.stderr.on('data', (chunk) => { err += chunk; });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`parley view exited ${code}\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

let browser, hostileDir, simulatedDir, hostile, simulated;
before(async () => {
  hostileDir = scratchDir('viewer-hostile');
  simulatedDir = scratchDir('viewer-simulated');
  await runHostile(hostileDir);
  await runSimulated(simulatedDir);
  hostile = await startViewer(hostileDir);
  simulated = await startViewer(simulatedDir);
  browser = await launchBrowser();
  fs.mkdirSync(screenshotDir, { recursive: true });
});
after(async () => {
  await closeBrowser(browser);
  if (hostile) assert.equal(await hostile.close(), 0, 'parley view stops cleanly on SIGINT');
  if (simulated) await simulated.close();
});

async function waitForRows(page) {
  await page.waitForSelector('main[data-view="list"] tr[data-debate]', { timeout: 15_000 });
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'), null, { timeout: 15_000 }).catch(() => {});
}

const total = (page) => page.$eval('[data-total]', (node) => Number(node.dataset.total));

test('the list shows every debate, filters by protocol and outcome, searches and pages', async () => {
  const record = await openPage(browser);
  const { page } = record;
  const run = await (await fetch(hostile.url + 'api/run')).json();
  await page.goto(hostile.url + '#/list');
  await waitForRows(page);
  assert.equal(await total(page), run.debates);
  assert.ok(run.debates > 0);

  // Protocol and outcome filters, as the API counts them.
  const protocol = run.protocols.find((name) => name.includes('<')) || run.protocols[0];
  const expected = await (await fetch(`${hostile.url}api/debates?protocol=${encodeURIComponent(protocol)}&correct=0&limit=1`)).json();
  await page.goto(`${hostile.url}#/list?protocol=${encodeURIComponent(protocol)}&correct=0`);
  await page.waitForFunction((n) => Number(document.querySelector('[data-total]')?.dataset.total) === n, expected.total,
                             { timeout: 15_000 });
  const shown = await page.$$eval('tr[data-debate]', (rows) => rows.length);
  assert.equal(shown, Math.min(expected.total, 50));

  // The text search finds a hostile task id as text.
  const hostileTask = tasks.find((task) => task.id.includes('<'));
  await page.goto(`${hostile.url}#/list?q=${encodeURIComponent(hostileTask.id)}`);
  await waitForRows(page);
  const ids = await page.$$eval('tr[data-debate]', (rows) => rows.map((row) => row.textContent));
  assert.ok(ids.length > 0 && ids.every((text) => text.includes(hostileTask.id)), 'every row found holds the task id as text');

  // Paging: page size 25, the next page starts at 26.
  await page.goto(`${hostile.url}#/list?limit=25`);
  await waitForRows(page);
  const firstPage = await page.$$eval('tr[data-debate]', (rows) => rows.map((row) => row.dataset.debate));
  await page.click('[data-page="next"]');
  await page.waitForFunction((first) => document.querySelector('tr[data-debate]')?.dataset.debate !== first,
                             firstPage[0], { timeout: 15_000 });
  const secondPage = await page.$$eval('tr[data-debate]', (rows) => rows.map((row) => row.dataset.debate));
  assert.equal(firstPage.length, 25);
  assert.ok(secondPage.every((key) => !firstPage.includes(key)), 'the second page holds other debates');

  await page.screenshot({ path: path.join(screenshotDir, 'view-list.png'), fullPage: false });
  assert.deepEqual(await injectedMarkup(page), []);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assertPageClean(record);
  await record.context.close();
});

test('a debate page shows the agents side by side and the hostile replies as text', async () => {
  const record = await openPage(browser);
  const { page } = record;
  const list = await (await fetch(`${hostile.url}api/debates?protocol=debate&limit=1`)).json();
  const row = list.rows[0];
  const hash = `#/debate?task=${encodeURIComponent(row.task_id)}&protocol=${encodeURIComponent(row.protocol)}&seed=${row.seed}`;
  await page.goto(hostile.url + hash);
  await page.waitForSelector('main[data-view="debate"] article[data-call-id]', { timeout: 15_000 });
  const agents = await page.$$eval('thead th[data-agent]', (cells) => cells.map((cell) => cell.dataset.agent));
  assert.ok(agents.length >= 2, `agents side by side: ${agents}`);
  const replies = await page.$$eval('article[data-call-id]', (calls) => calls.map((call) => call.textContent));
  assert.ok(replies.some((text) => text.includes('<script>')), 'a reply\'s <script> shows as text');
  // The same task under the other protocols is linked.
  const others = await page.$$eval('a[href*="#/debate?"]', (links) => links.map((link) => link.getAttribute('href')));
  assert.ok(others.some((href) => !href.includes('protocol=debate')), 'links to the other protocols');

  await page.screenshot({ path: path.join(screenshotDir, 'view-debate.png'), fullPage: false });
  assert.deepEqual(await injectedMarkup(page), []);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assertPageClean(record);
  await record.context.close();
});

test('the summary links the report, which /report serves with its own policy and draws', async () => {
  const record = await openPage(browser);
  const { page } = record;
  await page.goto(simulated.url + '#/summary');
  await page.waitForSelector('main[data-view="summary"] a[href="/report"]', { timeout: 15_000 });
  // The summary frames the report, which draws there (sandboxed, in an origin of its own).
  const framed = await (await page.waitForSelector('iframe.report-frame', { timeout: 15_000 })).contentFrame();
  assert.ok(framed, 'the report is framed on the summary');
  await framed.waitForSelector('figure.plot[data-rendered="true"]', { timeout: 20_000 });
  assert.equal(await framed.evaluate(() => window.origin), 'null', 'the framed report runs in an opaque origin');
  await page.screenshot({ path: path.join(screenshotDir, 'view-summary.png'), fullPage: false });
  const response = await fetch(simulated.url + 'report');
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-security-policy') || '', /script-src 'sha256-/);
  await page.goto(simulated.url + 'report');
  await page.waitForFunction(() => document.querySelectorAll('figure.plot[data-rendered="true"]').length > 0 ||
                                   document.body.dataset.error, null, { timeout: 20_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.error), undefined);
  assertPageClean(record);
  await record.context.close();
});

test('no response carries the API key, and paths outside DIR are refused', async () => {
  const list = await (await fetch(`${hostile.url}api/debates?limit=200`)).text();
  assert.ok(!list.includes(apiKeySecret));
  const first = JSON.parse(list).rows[0];
  const debate = await (await fetch(`${hostile.url}api/debate?task=${encodeURIComponent(first.task_id)}` +
                                    `&protocol=${encodeURIComponent(first.protocol)}&seed=${first.seed}`)).text();
  assert.ok(!debate.includes(apiKeySecret));
  assert.ok(!(await (await fetch(hostile.url + 'api/run')).text()).includes(apiKeySecret));
  for (const probe of ['results.sqlite', '../results.sqlite', 'assets/../results.sqlite', '%2e%2e/%2e%2e/etc/passwd',
                       'assets/..%2f..%2fresults.sqlite', 'transcripts.jsonl', 'summary.json']) {
    const response = await fetch(hostile.url + probe);
    assert.ok(response.status >= 400, `${probe}: ${response.status}`);
    assert.ok(!(await response.text()).includes('SQLite format'), probe);
  }
});
