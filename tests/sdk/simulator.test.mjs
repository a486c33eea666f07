// parley serve on the simulator, called by the official openai client: a completion and a
// stream as the SDK reads them, the models list and health, and the store read back by
// `parley report` and `parley compare`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import OpenAI from 'openai';

import { runParley, runParleyOnStore, scratchDir, serveFile, startGateway } from './lib/gateway.mjs';

const question = 'Which gas do plants take in?\nA) Oxygen\nB) Carbon dioxide\nC) Helium';

let gateway;
let client;
let dir;

before(async () => {
  dir = scratchDir('simulator');
  gateway = await startGateway(dir, serveFile({
    // A real delay per simulated call, so that a stream's chunks are spread out in time.
    models: ['{name: sim, backend: simulator, delay_ms: 60}'],
    agents: ['{name: a1, model: sim}', '{name: a2, model: sim}', '{name: a3, model: sim}'],
    serve: ['models:',
            '  - {model: debate-3x2, protocol: debate, agents: [a1, a2, a3], rounds: 2}',
            '  - {model: single, protocol: single, agents: [a1]}'],
  }));
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  if (gateway) {
    const exit = await gateway.stop();
    assert.equal(exit.code, 0, gateway.stderr());
  }
});

test('a completion is the debate\'s answer with every call in its usage', async () => {
  const completion = await client.chat.completions.create({
    model: 'debate-3x2', messages: [{ role: 'user', content: question }],
    parley: { task_id: 'plants', gold: 'B' },
  });
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.model, 'debate-3x2');
  const message = completion.choices[0].message;
  assert.equal(message.role, 'assistant');
  assert.match(message.content, /\S/);
  assert.equal(completion.choices[0].finish_reason, 'stop');
  const { parley } = completion;
  assert.equal(parley.protocol, 'debate');
  assert.equal(parley.simulated, true);
  assert.equal(parley.calls, 9);  // 3 agents × (answer + 2 revisions), no re-ask on the simulator's replies
  assert.equal(parley.rounds, 2);
  assert.equal(parley.debate_triggered, true);
  assert.equal(parley.decision.status, 'completed');
  assert.match(parley.decision.answer, /^[ABC]$/);
  assert.equal(parley.correct, parley.decision.answer === 'B');
  assert.deepEqual(parley.transcript_id, { task_id: 'plants', model: 'debate-3x2', seed: 0 });
  const { usage } = completion;
  assert.ok(usage.prompt_tokens > 0 && usage.completion_tokens > 0);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
  assert.equal(typeof usage.prompt_tokens_details.cached_tokens, 'number');

  // The stored debate has the same tokens and calls (parley report reads the store).
  const report = await runParleyOnStore(['report', `${dir}/store`, '--json']);
  assert.equal(report.code, 0, report.stderr);
  const summary = JSON.parse(report.stdout);
  const stored = summary.protocols.find((p) => p.name === 'debate-3x2');
  assert.equal(stored.n, 1);
  assert.equal(stored.tokens_in_mean, usage.prompt_tokens);
  assert.equal(stored.tokens_out_mean, usage.completion_tokens);
  assert.equal(stored.calls_mean, 9);
  assert.equal(summary.simulated, true);
});

test('a stream sends each call as it finishes, then the answer, the summary and the usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'debate-3x2', messages: [{ role: 'user', content: question }], stream: true,
    stream_options: { include_usage: true }, parley: { task_id: 'plants-streamed' },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push({ chunk, at: Date.now() });
  assert.equal(chunks[0].chunk.choices[0].delta.role, 'assistant');
  const progress = chunks.filter(({ chunk }) => chunk.parley?.progress);
  assert.equal(progress.filter(({ chunk }) => chunk.parley.progress.kind === 'call').length, 9);
  assert.deepEqual(progress.filter(({ chunk }) => chunk.parley.progress.kind === 'call')
                       .map(({ chunk }) => chunk.parley.progress.round), [0, 0, 0, 1, 1, 1, 2, 2, 2]);
  for (const { chunk } of progress) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    assert.deepEqual(chunk.choices[0].delta, {});
  }
  // Progress as it happens: 60 ms per simulated call, three rounds one after another, so the
  // first round's chunks arrive well before the last round's (one burst at the end would not).
  const firstRound = progress.find(({ chunk }) => chunk.parley.progress.round === 0).at;
  const lastRound = progress.findLast(({ chunk }) => chunk.parley.progress.round === 2).at;
  assert.ok(lastRound - firstRound >= 100, `rounds ${lastRound - firstRound} ms apart`);

  const content = chunks.map(({ chunk }) => chunk.choices[0]?.delta?.content ?? '').join('');
  assert.match(content, /\S/);
  const finish = chunks.find(({ chunk }) => chunk.choices[0]?.finish_reason);
  assert.equal(finish.chunk.choices[0].finish_reason, 'stop');
  assert.equal(finish.chunk.parley.calls, 9);
  const last = chunks[chunks.length - 1].chunk;
  assert.deepEqual(last.choices, []);
  assert.ok(last.usage.prompt_tokens > 0);

  // The SDK's own accumulation of a stream reads the same answer.
  const runner = client.chat.completions.stream({
    model: 'single', messages: [{ role: 'user', content: question }], parley: { task_id: 'plants-runner' },
  });
  const final = await runner.finalChatCompletion();
  assert.match(final.choices[0].message.content, /\S/);
});

test('the models list and health', async () => {
  const models = [];
  for await (const model of client.models.list()) models.push(model.id);
  assert.deepEqual(models, ['debate-3x2', 'single']);
  const model = await client.models.retrieve('single');
  assert.equal(model.id, 'single');
  await assert.rejects(client.models.retrieve('nope'), (error) => error.status === 404);
  const health = await (await fetch(`${gateway.root}/health`)).json();
  assert.equal(health.status, 'ok');
  assert.deepEqual(health.models, ['debate-3x2', 'single']);
  assert.equal(health.simulated, true);
});

test('an unknown model and a malformed request are OpenAI errors the SDK raises', async () => {
  await assert.rejects(client.chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'q' }] }),
                       (error) => error.status === 404 && error.code === 'model_not_found' && error.param === 'model');
  await assert.rejects(client.chat.completions.create({ model: 'single', messages: [{ role: 'user', content: 'q' }], n: 2 }),
                       (error) => error.status === 400 && error.param === 'n');
  await assert.rejects(client.chat.completions.create({ model: 'debate-3x2', messages: [{ role: 'user', content: question }],
                                                        parley: { task_id: 'plants', gold: 'B' } }),
                       (error) => error.status === 409 && error.code === 'duplicate_task');
});

test('served debates are a run: parley compare pairs the same task under two models', async () => {
  for (const model of ['debate-3x2', 'single']) {
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: question }],
                                           parley: { task_id: 'paired', gold: 'B' }, seed: 7 });
  }
  const compare = await runParleyOnStore(['compare', `${dir}/store`, '--json']);
  assert.equal(compare.code, 0, compare.stderr);
  assert.match(compare.stdout, /debate-3x2/);
});

test('a task id names one task: another question, options or gold under it is 409, also after a restart', async () => {
  const own = scratchDir('simulator-tasks');
  const yaml = serveFile({
    models: ['{name: sim, backend: simulator}'],
    agents: ['{name: a1, model: sim}'],
    serve: ['models:', '  - {model: single, protocol: single, agents: [a1]}', '  - {model: other, protocol: single, agents: [a1]}'],
  });
  const ask = (content, parley, extra = {}) => ({ model: 'single', messages: [{ role: 'user', content }], parley, ...extra });
  const conflict = (error) => error.status === 409 && error.code === 'task_conflict' && error.param === 'parley.task_id';
  let first = await startGateway(own, yaml);
  try {
    const sdk = new OpenAI({ baseURL: first.baseURL, apiKey: 'unused', maxRetries: 0 });
    await sdk.chat.completions.create(ask(question, { task_id: 't1', gold: 'B' }));
    // The same task under another seed and another model: a new unit of it.
    await sdk.chat.completions.create(ask(question, { task_id: 't1', gold: 'B' }, { seed: 3 }));
    await sdk.chat.completions.create(ask(question, { task_id: 't1', gold: 'B' }, { model: 'other' }));
    await assert.rejects(sdk.chat.completions.create(ask('Another question?', { task_id: 't1', gold: 'B' }, { seed: 4 })),
                         (error) => conflict(error) && /different question/.test(error.message));
    await assert.rejects(sdk.chat.completions.create(ask(question, { task_id: 't1', gold: 'A' }, { seed: 4 })),
                         (error) => conflict(error) && /different gold/.test(error.message));
    const fourOptions = ['Oxygen', 'Carbon dioxide', 'Helium', 'Neon'];
    await assert.rejects(sdk.chat.completions.create(ask('Which gas do plants take in?',
                                                         { task_id: 't1', gold: 'B', options: fourOptions }, { seed: 4 })),
                         (error) => conflict(error) && /different options/.test(error.message));
    // Without gold: no accuracy for that model, "-" rather than 0.
    await sdk.chat.completions.create(ask('What is the capital of France?', { task_id: 'no-gold' }, { model: 'other' }));
  } finally {
    assert.equal((await first.stop()).code, 0, first.stderr());
  }
  const report = await runParley(['report', `${own}/store`]);
  assert.equal(report.code, 0, report.stderr);
  const summary = JSON.parse((await runParley(['report', `${own}/store`, '--json'])).stdout);
  const other = summary.protocols.find((p) => p.name === 'other');
  assert.equal(other.n, 2);
  assert.equal(other.accuracy_n, 1);  // only t1 has gold
  const again = await startGateway(own, yaml);
  try {
    const sdk = new OpenAI({ baseURL: again.baseURL, apiKey: 'unused', maxRetries: 0 });
    await assert.rejects(sdk.chat.completions.create(ask('Another question?', { task_id: 't1', gold: 'B' }, { seed: 9 })),
                         conflict);
    const completion = await sdk.chat.completions.create(ask(question, { task_id: 't1', gold: 'B' }, { seed: 9 }));
    assert.equal(completion.parley.transcript_id.task_id, 't1');
  } finally {
    assert.equal((await again.stop()).code, 0, again.stderr());
  }
});

test('parley report shows "-" for a served model none of whose requests gave gold', async () => {
  const own = scratchDir('simulator-no-gold');
  const gw = await startGateway(own, serveFile({
    models: ['{name: sim, backend: simulator}'],
    agents: ['{name: a1, model: sim}'],
    serve: ['models:', '  - {model: single, protocol: single, agents: [a1]}'],
  }));
  try {
    const sdk = new OpenAI({ baseURL: gw.baseURL, apiKey: 'unused', maxRetries: 0 });
    await sdk.chat.completions.create({ model: 'single', messages: [{ role: 'user', content: question }] });
  } finally {
    assert.equal((await gw.stop()).code, 0, gw.stderr());
  }
  const report = await runParley(['report', `${own}/store`]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^single\s+1\s+-\s+\d+\s+\d+\s+[\d.]+\s+-\s/m);
  const summary = JSON.parse((await runParley(['report', `${own}/store`, '--json'])).stdout);
  assert.equal(summary.protocols[0].accuracy, null);
  assert.equal(summary.protocols[0].accuracy_n, 0);
  assert.equal(summary.protocols[0].apt, null);
});
