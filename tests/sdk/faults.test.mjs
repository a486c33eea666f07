// parley serve against loopback backends with injected faults, called by the official openai
// client: retries and failures, cancellation when the client leaves (the backend sees its
// connections close), deadline and budget, 429 under saturation, capability fallback (n,
// logprobs), and the gateway's key.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, test } from 'node:test';

import OpenAI from 'openai';

import { startBackend } from './lib/backend.mjs';
import { runParley, runParleyOnStore, scratchDir, serveFile, sleep, startGateway, waitFor } from './lib/gateway.mjs';

const question = 'Which gas do plants take in?\nA) Oxygen\nB) Carbon dioxide\nC) Helium';
const ask = (extra = {}) => ({ messages: [{ role: 'user', content: question }], ...extra });

let cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

// A gateway over one backend model `m` (extra model keys in `modelKeys`) and agents a1..a3.
async function setUp(name, backendOptions, serveLines, { modelKeys = '', args = [], env = {} } = {}) {
  const backend = await startBackend(backendOptions);
  cleanups.push(() => backend.close());
  const dir = scratchDir(name);
  const gateway = await startGateway(dir, serveFile({
    models: [`{name: m, backend: openai, base_url: "${backend.baseUrl}", model: fake, retry_base_delay_s: 0.01${modelKeys}}`],
    agents: ['{name: a1, model: m}', '{name: a2, model: m}', '{name: a3, model: m}'],
    serve: serveLines,
  }), { args, env });
  cleanups.push(async () => {
    const exit = await gateway.stop();
    assert.equal(exit.code, 0, gateway.stderr());
  });
  const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: env.GATEWAY_KEY ?? 'unused', maxRetries: 0 });
  return { backend, gateway, client, dir };
}

const models = (...lines) => ['models:', ...lines.map((line) => `  - ${line}`)];

test('a backend failing twice is retried, and every attempt\'s reply is counted once', async () => {
  const { backend, client } = await setUp('retry', { behave: (body, i) => (i < 2 ? { status: 500 } : {}) },
                                          models('{model: single, protocol: single, agents: [a1]}'));
  const completion = await client.chat.completions.create({ model: 'single', ...ask() });
  assert.equal(backend.requests.length, 3);
  assert.equal(completion.parley.calls, 1);
  assert.equal(completion.parley.decision.answer, 'B');
  assert.match(completion.choices[0].message.content, /Answer: B/);
  const promptTokens = Math.ceil(backend.requests[2].body.messages.map((m) => m.content).join('\n').length / 4);
  assert.equal(completion.usage.prompt_tokens, promptTokens);
});

test('a backend that keeps failing is a 502 the SDK raises, and the failed debate is stored', async () => {
  // The backend's own text (an internal address, an HTML page) goes to the store and the log only.
  const leak = '<html>upstream http://10.9.8.7:8000 refused</html>';
  const { client, dir, gateway } = await setUp('failing', { behave: () => ({ status: 503, error: leak }) },
                                               models('{model: single, protocol: single, agents: [a1]}'),
                                               { modelKeys: ', max_retries: 1' });
  await assert.rejects(client.chat.completions.create({ model: 'single', ...ask({ parley: { task_id: 'f1' } }) }),
                       (error) => error.status === 502 && error.code === 'debate_failed' &&
                                  error.error.message === "the debate failed: backend call failed: HTTP 503 (stored as task 'f1')");
  const stream = await client.chat.completions.create({ model: 'single', ...ask({ stream: true }) });
  const chunks = [];
  await assert.rejects((async () => { for await (const chunk of stream) chunks.push(chunk); })(),
                       (error) => /the debate failed: backend call failed: HTTP 503/.test(error.message) &&
                                  !error.message.includes('10.9.8.7'));
  const failedCall = chunks.find((chunk) => chunk.parley?.progress?.kind === 'call');
  assert.equal(failedCall.parley.progress.error, 'backend call failed: HTTP 503');
  assert.ok(!JSON.stringify(chunks).includes('10.9.8.7'));
  // The log has the whole reason, and a stream whose debate failed as the 502 it is.
  await waitFor(() => /chat\/completions 502 .*\(streamed: HTTP 200, then the error\)/.test(gateway.stderr()),
                'the streamed failure to be logged as 502');
  assert.match(gateway.stderr(), /10\.9\.8\.7/);
  const report = JSON.parse((await runParleyOnStore(['report', `${dir}/store`, '--json'])).stdout);
  assert.equal(report.protocols[0].n, 2);
  assert.equal(report.protocols[0].failed, 2);
});

test('a client that half-closes after its request has left: its debate is cancelled and logged 499', async () => {
  const { backend, gateway } = await setUp('half-close', { behave: () => ({ delayMs: 30_000 }) },
                                           models('{model: single, protocol: single, agents: [a1]}'));
  const body = JSON.stringify({ model: 'single', ...ask() });
  const { port } = new URL(gateway.root);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
               `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await waitFor(() => backend.pending().length === 1, 'the call to reach the backend');
  socket.end();  // shuts down the sending side only
  await waitFor(() => backend.requests.every((r) => r.closedEarly), 'the backend to see the call closed', 5_000);
  await waitFor(() => / 499 .*client left during the debate: /.test(gateway.stderr()), 'the departure to be logged');
  socket.destroy();
});

test('a gateway that cannot listen leaves its store untouched; a store in use names serve.store', async () => {
  const { dir, gateway } = await setUp('start-failures', {}, models('{model: single, protocol: single, agents: [a1]}'));
  const file = path.join(dir, 'serve.yaml');
  const { port } = new URL(gateway.root);
  const fresh = path.join(dir, 'fresh-store');
  const inUse = await runParley(['serve', file, '--port', port, '--store', fresh]);
  assert.equal(inUse.code, 1, inUse.stderr);
  assert.ok(!fs.existsSync(fresh), 'the store was created by a gateway that did not start');
  const before = fs.readFileSync(path.join(dir, 'store', 'results.sqlite'));
  const busy = await runParley(['serve', file, '--port', '0', '--store', path.join(dir, 'store')]);
  assert.equal(busy.code, 1, busy.stderr);
  assert.match(busy.stderr, /is in use by another parley process \(process \d+\); wait for it to end, or choose another serve\.store \(or --store\)/);
  assert.ok(before.equals(fs.readFileSync(path.join(dir, 'store', 'results.sqlite'))));
  // Another serve file's store (here the served model's rounds differ) is refused with the way out.
  await gateway.stop();
  const other = path.join(dir, 'other.yaml');
  fs.writeFileSync(other, fs.readFileSync(file, 'utf8').replace('protocol: single', 'protocol: self_consistency, samples: 2'));
  const foreign = await runParley(['serve', other, '--port', '0', '--store', path.join(dir, 'store')]);
  assert.equal(foreign.code, 1, foreign.stderr);
  assert.match(foreign.stderr, /holds a run of a different experiment .*: choose another serve\.store \(or --store\)/);
});

test('max_connections bounds the open connections: one more is answered 503', async () => {
  const { gateway } = await setUp('max-connections', {}, ['max_connections: 1',
                                                            ...models('{model: single, protocol: single, agents: [a1]}')]);
  const { port } = new URL(gateway.root);
  const idle = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => idle.once('connect', resolve));
  await sleep(100);
  const refused = await fetch(`${gateway.root}/health`);
  assert.equal(refused.status, 503);
  idle.destroy();
  await sleep(100);
  assert.equal((await fetch(`${gateway.root}/health`, { headers: { Connection: 'close' } })).status, 200);
});

for (const streamed of [false, true]) {
  test(`a client leaving mid-debate (${streamed ? 'streaming' : 'not streaming'}) stops every backend call`, async () => {
    const { backend, client, gateway, dir } = await setUp(`cancel-${streamed}`, { behave: () => ({ delayMs: 30_000 }) },
                                                          models('{model: debate, protocol: debate, agents: [a1, a2, a3], rounds: 2}'));
    const controller = new AbortController();
    const request = (async () => {
      const response = await client.chat.completions.create({ model: 'debate', ...ask({ stream: streamed }) },
                                                            { signal: controller.signal });
      if (streamed) for await (const chunk of response) void chunk;
    })();
    await waitFor(() => backend.pending().length === 3, 'the three opening calls to reach the backend');
    const leftAt = Date.now();
    controller.abort();
    if (streamed) await request.catch(() => {});  // the SDK may end an aborted stream quietly
    else await assert.rejects(request);
    await waitFor(() => backend.requests.every((r) => r.closedEarly), 'the backend to see every call closed', 5_000);
    for (const r of backend.requests) assert.ok(r.closedAt - leftAt < 2_000, `closed ${r.closedAt - leftAt} ms after`);
    await sleep(300);
    assert.equal(backend.requests.length, 3, 'no call is made after the client left');
    // Stored as failed, with its reason: its tokens (none yet) are accounted for.
    await waitFor(() => /499/.test(gateway.stderr()), 'the gateway to log the departure');
    const report = JSON.parse((await runParleyOnStore(['report', `${dir}/store`, '--json'])).stdout);
    assert.equal(report.protocols[0].failed, 1);
  });
}

test('a deadline cancels the calls in flight and ends the debate like a spent budget', async () => {
  const { backend, client } = await setUp('deadline', { behave: (body, i) => (i < 3 ? {} : { delayMs: 30_000 }) },
                                          models('{model: debate, protocol: debate, agents: [a1, a2, a3], rounds: 2}'));
  const started = Date.now();
  const completion = await client.chat.completions.create({ model: 'debate', ...ask({ parley: { deadline_s: 0.5 } }) });
  assert.ok(Date.now() - started < 3_000, `answered after ${Date.now() - started} ms`);
  assert.equal(completion.choices[0].finish_reason, 'length');
  assert.equal(completion.parley.decision.status, 'budget');
  assert.match(completion.parley.decision.reason, /deadline/);
  assert.equal(completion.parley.decision.answer, 'B');  // the vote over the opening answers
  await waitFor(() => backend.requests.slice(3).every((r) => r.closedEarly), 'the revision calls to be closed');
});

test('a token budget ends the debate early with finish_reason length', async () => {
  const { client } = await setUp('budget', {}, models('{model: debate, protocol: debate, agents: [a1, a2, a3], rounds: 2}'));
  const completion = await client.chat.completions.create({ model: 'debate', ...ask({ parley: { budget_tokens: 150 } }) });
  assert.equal(completion.choices[0].finish_reason, 'length');
  assert.equal(completion.parley.decision.status, 'budget');
  assert.ok(completion.usage.total_tokens <= 150 + 100, `${completion.usage.total_tokens} tokens`);
});

test('saturated, it answers 429 with Retry-After; a queued request waits its turn', async () => {
  const { client, gateway } = await setUp('saturated', { behave: () => ({ delayMs: 400 }) },
                                          ['max_debates: 1', 'max_waiting: 1', 'retry_after_s: 2',
                                           ...models('{model: single, protocol: single, agents: [a1]}')]);
  const first = client.chat.completions.create({ model: 'single', ...ask() });
  await sleep(100);
  const queued = client.chat.completions.create({ model: 'single', ...ask() });
  await sleep(100);
  const raw = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'single', ...ask() }),
  });
  assert.equal(raw.status, 429);
  assert.equal(raw.headers.get('retry-after'), '2');
  assert.equal((await raw.json()).error.code, 'rate_limit_exceeded');
  await assert.rejects(client.chat.completions.create({ model: 'single', ...ask() }),
                       (error) => error.status === 429);
  const [a, b] = await Promise.all([first, queued]);
  assert.equal(a.parley.decision.answer, 'B');
  assert.equal(b.parley.decision.answer, 'B');
});

test('a queued request whose deadline passes is a 503 at its deadline, and nothing is stored for it', async () => {
  const { backend, client, gateway, dir } = await setUp('queued-deadline', { behave: () => ({ delayMs: 1_500 }) },
                                                        ['max_debates: 1', 'retry_after_s: 3',
                                                         ...models('{model: single, protocol: single, agents: [a1]}')]);
  const first = client.chat.completions.create({ model: 'single', ...ask({ parley: { task_id: 'busy' } }) });
  await waitFor(() => backend.requests.length === 1, 'the first debate to hold the slot');
  const started = Date.now();
  const raw = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'single', ...ask({ parley: { task_id: 'late', deadline_s: 0.3 } }) }),
  });
  const waited = Date.now() - started;
  assert.equal(raw.status, 503);
  assert.ok(waited >= 250 && waited < 1_200, `answered after ${waited} ms`);  // at its deadline, not the slot's release
  assert.equal(raw.headers.get('retry-after'), '3');
  assert.equal((await raw.json()).error.code, 'deadline_in_queue');
  assert.equal((await first).parley.decision.answer, 'B');
  assert.equal(backend.requests.length, 1);  // the late request never reached the backend
  await waitFor(() => / 503 .*deadline passed while queued/.test(gateway.stderr()), 'the log line');
  const report = JSON.parse((await runParleyOnStore(['report', `${dir}/store`, '--json'])).stdout);
  assert.equal(report.protocols[0].n, 1);  // the first debate only
});

test('a backend without n > 1 is probed once; self-consistency asks per sample from then on', async () => {
  const { backend, client } = await setUp('no-n', { rejectN: true },
                                          models('{model: sc, protocol: self_consistency, agents: [a1], samples: 3}'));
  for (let i = 0; i < 2; ++i) {
    const completion = await client.chat.completions.create({ model: 'sc', ...ask() });
    assert.equal(completion.parley.decision.answer, 'B');
    assert.equal(completion.parley.calls, 3);
  }
  assert.equal(backend.requests.filter((r) => r.body.n > 1).length, 1, 'one request with n, rejected');
  assert.equal(backend.requests.filter((r) => !(r.body.n > 1)).length, 6);
});

test('a backend without logprobs is probed once; DOWN falls back as documented', async () => {
  const { backend, client } = await setUp('no-logprobs', { rejectLogprobs: true },
                                          models('{model: down, protocol: down, agents: [a1, a2], confidence: logprob}'));
  for (let i = 0; i < 2; ++i) {
    const completion = await client.chat.completions.create({ model: 'down', ...ask() });
    assert.equal(completion.parley.decision.status, 'completed');
  }
  assert.equal(backend.requests.filter((r) => r.body.logprobs).length, 1, 'one request with logprobs, rejected');
});

test('with --api-key-env, a request needs the key; a backend key is never echoed', async () => {
  const backendKey = 'sk-backend-SECRET-4242';
  const { backend, client, gateway, dir } = await setUp(
      'keyed', { behave: () => ({ status: 401, error: 'bad key' }) }, models('{model: single, protocol: single, agents: [a1]}'),
      { modelKeys: ', api_key_env: BACKEND_KEY, max_retries: 0', args: ['--api-key-env', 'GATEWAY_KEY'],
        env: { GATEWAY_KEY: 'gw-key', BACKEND_KEY: backendKey } });
  const stranger = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(stranger.chat.completions.create({ model: 'single', ...ask() }),
                       (error) => error.status === 401 && error.code === 'invalid_api_key');
  await assert.rejects(stranger.models.list(), (error) => error.status === 401);
  assert.equal((await fetch(`${gateway.root}/health`)).status, 200);  // health needs no key
  let failure;
  await client.chat.completions.create({ model: 'single', ...ask() }).catch((error) => { failure = error; });
  assert.equal(failure?.status, 502);
  assert.equal(backend.requests[0].headers.authorization, `Bearer ${backendKey}`);
  assert.ok(!JSON.stringify(failure.error).includes(backendKey));
  assert.ok(!gateway.stderr().includes(backendKey));
  const report = await runParleyOnStore(['report', `${dir}/store`, '--json']);
  assert.ok(!report.stdout.includes(backendKey));
});
