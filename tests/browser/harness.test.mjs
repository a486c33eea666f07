// Tests of the browser-test harness itself: that chromium runs, that the page recorder catches
// requests leaving localhost, console errors and page errors, that the hostile text really is
// hostile when pasted as HTML (and inert as text), that the canvas check tells a drawn canvas
// from a blank one — each check the report and viewer tests lean on, shown able to fail.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  assertPageClean, canvasInkedPixels, closeBrowser, isLocalUrl, launchBrowser, openPage, pageProblems,
} from './lib/browser.mjs';
import { fakeModel, hostileWrongText, readTasks, startFakeBackend } from './lib/fake_backend.mjs';
import { apiKeySecret, hostileLabel, hostileSnippets, injectedMarkup } from './lib/hostile.mjs';
import { filesContaining, hostileTasksFile, runHostile, scratchDir } from './lib/parley.mjs';

const html = (body) => `data:text/html;charset=utf-8,${encodeURIComponent(body)}`;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await closeBrowser(browser);
});

describe('page recorder', () => {
  test('a local page loads and is clean', async () => {
    const record = await openPage(browser);
    await record.page.goto(html('<h1>parley</h1>'));
    assert.equal(await record.page.textContent('h1'), 'parley');
    assert.deepEqual(pageProblems(record), []);
    assertPageClean(record);
    await record.context.close();
  });

  test('URLs on this machine are local; others are not', () => {
    for (const url of ['file:///tmp/report.html', 'data:text/html,x', 'blob:null/1234', 'about:blank',
                       'http://127.0.0.1:8080/api', 'https://localhost/x', 'http://[::1]:9/', 'ws://127.0.0.1:1/s'])
      assert.ok(isLocalUrl(url), url);
    for (const url of ['http://example.invalid/', 'https://cdn.jsdelivr.net/npm/chart.js', 'http://127.0.0.2/',
                       'http://localhost.example.com/', 'ftp://127.0.0.1/', 'javascript:alert(1)', 'not a url'])
      assert.ok(!isLocalUrl(url), url);
  });

  test('a request that leaves localhost is recorded, aborted and fails the page', async () => {
    // From a file: page (a data: page may not reach loopback: chromium's local network access).
    const backend = await startFakeBackend({ tasks: [], apiKey: null });
    try {
      const page = path.join(scratchDir('harness'), 'leak.html');
      fs.writeFileSync(page, `<img src="http://example.invalid/pixel.png">
        <script>fetch(${JSON.stringify(`${backend.baseUrl}/models`)}, { mode: 'no-cors' })
                  .then(() => document.title = 'done');</script>`);
      const record = await openPage(browser);
      await record.page.goto(pathToFileURL(page).href);
      await record.page.waitForFunction(() => document.title === 'done', null, { timeout: 5000 });
      await assert.rejects(record.page.goto('http://example.invalid/'));
      assert.deepEqual(record.outside, ['http://example.invalid/pixel.png', 'http://example.invalid/']);
      assert.ok(record.requests.includes(`${backend.baseUrl}/models`), 'a loopback request is recorded');
      assert.equal(backend.requests.length, 1, 'the loopback request reached the server');
      assert.throws(() => assertPageClean(record), /request left localhost: http:\/\/example\.invalid\/pixel\.png/);
      await record.context.close();
    } finally {
      await backend.close();
    }
  });

  test('console errors and uncaught page errors fail the page', async () => {
    const record = await openPage(browser);
    await record.page.goto(html(`<script>console.error('bad thing'); setTimeout(() => { throw new Error('boom'); });</script>`));
    await record.page.waitForTimeout(50);
    const problems = pageProblems(record);
    assert.ok(problems.some((line) => line === 'console error: bad thing'), problems.join('\n'));
    assert.ok(problems.some((line) => line.startsWith('page error: Error: boom')), problems.join('\n'));
    assert.throws(() => assertPageClean(record), /boom/);
    await record.context.close();
  });

  test('a CSP violation shows as a console error', async () => {
    const record = await openPage(browser);
    await record.page.goto(html(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
      <script>window.ran = true;</script><p>x</p>`));
    assert.equal(await record.page.evaluate(() => window.ran), undefined);
    assert.ok(record.consoleErrors.some((text) => /Content Security Policy/.test(text)), record.consoleErrors.join('\n'));
    await record.context.close();
  });

  test('bypassCSP lets a page\'s inline script run (how the report test checks escaping without the CSP)', async () => {
    const record = await openPage(browser, { bypassCSP: true });
    await record.page.goto(html(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
      <script>window.ran = true;</script>`));
    assert.equal(await record.page.evaluate(() => window.ran), true);
    await record.context.close();
  });
});

describe('hostile text', () => {
  test('pasted as HTML it runs script and makes elements; set as text it does neither', async () => {
    const record = await openPage(browser);
    await record.page.goto(html('<div id="as-html"></div><div id="as-text"></div>'));
    await record.page.evaluate((snippets) => {
      document.getElementById('as-text').textContent = snippets.join('\n');
    }, hostileSnippets);
    assert.deepEqual(await injectedMarkup(record.page), []);
    assert.equal(await record.page.evaluate(() => window.__pwned), undefined);
    assert.ok((await record.page.textContent('#as-text')).includes('<script>window.__pwned=1</script>'));

    await record.page.evaluate((snippets) => {
      document.getElementById('as-html').innerHTML = snippets.join('\n');
    }, hostileSnippets);
    await record.page.waitForFunction(() => window.__pwned !== undefined, null, { timeout: 5000 });
    const found = await injectedMarkup(record.page);
    for (const expected of [/on\* attribute: <img/, /on\* attribute: <svg/, /on\* attribute: <details/,
                            /hostile URL attribute: <a href="javascript:/, /element: <iframe/, /hostile URL attribute: <link/,
                            /style with hostile text/])
      assert.ok(found.some((line) => expected.test(line)), `${expected} in\n${found.join('\n')}`);
    assert.ok(record.outside.some((url) => url.includes('example.invalid')), 'the pasted markup made a request');
    await record.context.close();
  });
});

describe('canvas check', () => {
  test('a blank canvas has no ink; a drawn one has', async () => {
    const record = await openPage(browser);
    await record.page.goto(html('<canvas id="blank" width="200" height="100"></canvas>' +
                                '<canvas id="drawn" width="200" height="100"></canvas>' +
                                '<canvas id="empty" width="0" height="0"></canvas>'));
    await record.page.evaluate(() => {
      const context = document.getElementById('drawn').getContext('2d');
      context.fillRect(10, 10, 20, 5);
    });
    assert.equal(await canvasInkedPixels(record.page, '#blank'), 0);
    assert.equal(await canvasInkedPixels(record.page, '#drawn'), 100);
    assert.equal(await canvasInkedPixels(record.page, '#empty'), 0);
    assertPageClean(record);
    await record.context.close();
  });
});

describe('fake backend', () => {
  test('answers with hostile text that ends in a parsable answer, n choices, a JSON verdict, models; checks the key', async () => {
    const tasks = readTasks(hostileTasksFile);
    const backend = await startFakeBackend({ tasks, apiKey: apiKeySecret });
    try {
      const post = (body, key = apiKeySecret) => fetch(`${backend.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      const sky = tasks.find((task) => task.id === 'choice-sky');
      const ask = { model: fakeModel, n: 3, messages: [{ role: 'user', content: `${sky.question}\n\nA. Green` }] };
      const reply = await (await post(ask)).json();
      assert.equal(reply.choices.length, 3);
      for (const choice of reply.choices) {
        const text = choice.message.content;
        for (const snippet of hostileSnippets) assert.ok(text.includes(snippet), snippet);
        assert.match(text, /\nAnswer: B\nConfidence: 80%$/, 'a first turn is right');
      }
      assert.ok(reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0);

      const judge = { model: fakeModel, messages: [{ role: 'user', content: `${sky.question}\nReply with only a JSON object` }] };
      const verdict = JSON.parse((await (await post(judge)).json()).choices[0].message.content);
      assert.equal(verdict.Preference, 'Yes');
      assert.equal(verdict['Debate Answer'], 'C', 'the judge settles on a wrong answer');
      assert.ok(verdict.Reason.includes('<script>window.__pwned=1</script>'));

      assert.equal((await post(ask, 'wrong-key')).status, 401);
      assert.equal((await post({ messages: [{ role: 'user', content: 'unknown question' }] })).status, 400);
      const models = await (await fetch(`${backend.baseUrl}/models`, { headers: { Authorization: `Bearer ${apiKeySecret}` } })).json();
      assert.deepEqual(models.data.map((model) => model.id), [fakeModel]);
      assert.deepEqual(backend.requests.map((request) => request.authorized), [true, true, false, true, true]);
    } finally {
      await backend.close();
    }
  });
});

describe('hostile run', () => {
  test('parley completes every debate against the fake backend and stores the hostile text as written', async () => {
    const dir = scratchDir('hostile-run');
    const { result, backend } = await runHostile(dir);
    assert.ok(backend.requests.length > 0);
    assert.ok(backend.requests.every((request) => request.authorized && request.answered),
              'every request carried the key from PARLEY_BROWSER_TEST_API_KEY and was answered');

    const transcripts = fs.readFileSync(path.join(dir, 'transcripts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const tasks = readTasks(hostileTasksFile);
    assert.equal(transcripts.length, tasks.length * 4 * 2, 'tasks x protocols x seeds');
    for (const transcript of transcripts) assert.equal(transcript.status, 'completed', JSON.stringify(transcript).slice(0, 300));
    assert.ok(transcripts.some((transcript) => transcript.protocol === hostileLabel), 'the hostile protocol label');
    assert.ok(transcripts.some((transcript) => transcript.task_id.startsWith('<img src=x onerror=')), 'the hostile task id');
    assert.ok(transcripts.some((transcript) => transcript.final_answer.startsWith('<b onmouseover=')), 'a hostile gold answered');
    assert.ok(transcripts.some((transcript) => transcript.final_answer === hostileWrongText), 'a hostile wrong answer');
    assert.ok(transcripts.filter((transcript) => transcript.protocol === 'mad').every((transcript) => !transcript.correct),
              'mad\'s judge is always wrong');
    const replies = transcripts.flatMap((transcript) => transcript.messages.map((message) => message.text)).join('\n');
    for (const snippet of hostileSnippets) assert.ok(replies.includes(snippet), `a reply holds ${snippet}`);
    const prompts = JSON.stringify(transcripts.flatMap((transcript) => transcript.messages.map((message) => message.prompt)));
    for (const task of tasks) assert.ok(prompts.includes(JSON.stringify(task.question).slice(1, -1)), `a prompt holds ${task.question}`);

    assert.deepEqual(filesContaining(dir, apiKeySecret), [], 'the API key is in no file of the run');
    assert.ok(!result.stdout.includes(apiKeySecret) && !result.stderr.includes(apiKeySecret));
  });
});
