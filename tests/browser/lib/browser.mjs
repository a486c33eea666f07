// Debian's chromium, driven by playwright-core, for parley's browser tests (docs/testing.md).
// launchBrowser() starts a headless chromium with a fresh profile; openPage() gives a page that
// records every request it (or a popup, worker or frame of it) makes, every console error and
// every uncaught page error, and pageProblems() / assertPageClean() turn them into a failure.
// A missing chromium or playwright-core is an error that names scripts/setup.sh: CI runs setup
// first, so a browser test never skips silently.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const browserTestDir = path.dirname(here);

// The chromium the tests drive: Debian's package (scripts/setup.sh installs it).
export const chromiumPath = process.env.PARLEY_CHROMIUM || '/usr/bin/chromium';

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',  // root in CI containers
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const setupHint = 'run scripts/setup.sh (it installs Debian\'s chromium and runs `npm ci` in tests/browser/)';

// playwright-core's chromium launcher, or an error naming setup.sh when `npm ci` never ran.
async function playwrightChromium() {
  try {
    const { chromium } = await import('playwright-core');
    return chromium;
  } catch (error) {
    throw new Error(`playwright-core is not installed in ${path.join(browserTestDir, 'node_modules')}: ` +
                    `${setupHint} (${error.message})`);
  }
}

// Starts a headless chromium. playwright gives it a profile of its own, a fresh temporary
// directory it removes on close.
export async function launchBrowser() {
  try {
    fs.accessSync(chromiumPath, fs.constants.X_OK);
  } catch {
    throw new Error(`no chromium at ${chromiumPath}: ${setupHint}`);
  }
  const chromium = await playwrightChromium();
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 60_000 });
}

export async function closeBrowser(browser) {
  if (browser) await browser.close();
}

// Whether a URL stays on this machine: file:, data:, blob:, about:, or http(s)/ws(s) to
// 127.0.0.1, [::1] or localhost.
export function isLocalUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (['file:', 'data:', 'blob:', 'about:'].includes(parsed.protocol)) return true;
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
}

// A page in a context of its own that records what it does. Returns
//   { context, page, requests, outside, consoleErrors, pageErrors }
// requests: every URL requested (navigations, subresources, fetches, websockets, popups);
// outside: those that are not local (isLocalUrl) — they are also aborted, so a leak fails the
// test without reaching the network. contextOptions go to browser.newContext (e.g. bypassCSP).
export async function openPage(browser, contextOptions = {}) {
  const context = await browser.newContext(contextOptions);
  const record = {
    context,
    page: null,
    requests: [],
    outside: [],
    consoleErrors: [],
    pageErrors: [],
  };
  const seen = (url) => {
    record.requests.push(url);
    if (!isLocalUrl(url)) record.outside.push(url);
  };
  context.on('request', (request) => seen(request.url()));
  await context.route((url) => !isLocalUrl(url.href), (route) => route.abort('blockedbyclient'));
  const watch = (page) => {
    page.on('websocket', (socket) => seen(socket.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') record.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => record.pageErrors.push(String(error && error.stack || error)));
  };
  context.on('page', watch);
  record.page = await context.newPage();
  return record;
}

// What went wrong on a recorded page, one line each (empty when nothing did).
export function pageProblems(record) {
  return [
    ...record.outside.map((url) => `request left localhost: ${url}`),
    ...record.consoleErrors.map((text) => `console error: ${text}`),
    ...record.pageErrors.map((text) => `page error: ${text}`),
  ];
}

export function assertPageClean(record) {
  const problems = pageProblems(record);
  if (problems.length > 0) throw new Error(`the page was not clean:\n  ${problems.join('\n  ')}`);
}

// Counts the canvas's pixels that are not fully transparent, by copying it onto a scratch 2-D
// canvas (works for any context type). Runs in the page.
export async function canvasInkedPixels(page, selector) {
  return page.$eval(selector, (canvas) => {
    if (canvas.width === 0 || canvas.height === 0) return 0;
    const scratch = document.createElement('canvas');
    scratch.width = canvas.width;
    scratch.height = canvas.height;
    const context = scratch.getContext('2d');
    context.drawImage(canvas, 0, 0);
    const { data } = context.getImageData(0, 0, scratch.width, scratch.height);
    let inked = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) ++inked;
    return inked;
  });
}
