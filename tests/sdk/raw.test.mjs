// parley serve's raw HTTP, with curl: error bodies for malformed requests, the limits the HTTP
// server enforces, and the server-sent events exactly as they go over the wire.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';

import { scratchDir, serveFile, startGateway } from './lib/gateway.mjs';

let gateway;

before(async () => {
  gateway = await startGateway(scratchDir('raw'), serveFile({
    models: ['{name: sim, backend: simulator}'],
    agents: ['{name: a1, model: sim}', '{name: a2, model: sim}'],
    serve: ['max_request_bytes: 4096', 'models:', '  - {model: debate, protocol: debate, agents: [a1, a2], rounds: 1}'],
  }));
});

after(async () => {
  if (gateway) assert.equal((await gateway.stop()).code, 0, gateway.stderr());
});

// curl ARGS...; resolves to { status, headers, body } (-i: headers in the output).
function curl(args) {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '-i', '--max-time', '20', ...args], { maxBuffer: 16 << 20 }, (error, stdout) => {
      if (error) {
        reject(error);
        return;
      }
      const split = stdout.indexOf('\r\n\r\n');
      const head = stdout.slice(0, split).split('\r\n');
      const headers = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(head[0].split(' ')[1]), headers, body: stdout.slice(split + 4) });
    });
  });
}

const completions = () => `${gateway.baseURL}/chat/completions`;
const post = (body, contentType = 'application/json') =>
  curl(['-H', `Content-Type: ${contentType}`, '--data-binary', body, completions()]);

function assertOpenAiError(response, status, param, code) {
  assert.equal(response.status, status, response.body);
  assert.match(response.headers['content-type'], /application\/json/);
  const { error } = JSON.parse(response.body);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.type, 'string');
  if (param !== undefined) assert.equal(error.param, param);
  if (code !== undefined) assert.equal(error.code, code);
}

test('malformed requests are OpenAI-style 400s naming the parameter', async () => {
  assertOpenAiError(await post('{"model": "debate", "messages": ['), 400, null, 'invalid_json');
  assertOpenAiError(await post('[]'), 400, null, 'invalid_json');
  assertOpenAiError(await post('{"messages": [{"role": "user", "content": "q"}]}'), 400, 'model');
  assertOpenAiError(await post('{"model": "debate", "messages": [{"role": "user"}]}'), 400, 'messages[0].content');
  assertOpenAiError(await post('{"model": "debate", "messages": [{"role": "user", "content": "q"}], "stream": 1}'),
                    400, 'stream');
});

test('the HTTP server\'s own limits: media type, size, route, method', async () => {
  assertOpenAiError(await post('{"model": "debate"}', 'text/plain'), 415, null, 'unsupported_media_type');
  const big = JSON.stringify({ model: 'debate', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  assert.equal((await post(big)).status, 413);
  assertOpenAiError(await curl([`${gateway.root}/v1/embeddings`]), 404, null, 'not_found');
  const wrongMethod = await curl([completions()]);
  assertOpenAiError(wrongMethod, 405);
  assert.equal(wrongMethod.headers.allow, 'POST');
  const healthPost = await curl(['-X', 'POST', `${gateway.root}/health`]);
  assertOpenAiError(healthPost, 405);
  assert.equal(healthPost.headers.allow, 'GET, HEAD');
  // Not HTTP at all: a 400, and the server goes on.
  const garbage = await new Promise((resolve) => {
    execFile('sh', ['-c', `printf 'NONSENSE\\r\\n\\r\\n' | curl -sS --max-time 5 telnet://${gateway.root.slice(7)}`],
             (error, stdout) => resolve(stdout));
  });
  assert.match(garbage, /^HTTP\/1\.1 400/);
  assert.equal((await curl([`${gateway.root}/health`])).status, 200);
  // DNS rebinding: on loopback, a Host naming another machine is refused.
  assertOpenAiError(await curl(['-H', 'Host: evil.example:8080', `${gateway.root}/health`]), 421, null, 'misdirected_request');
  assertOpenAiError(await curl(['-H', 'Host:', `${gateway.root}/v1/models`]), 421);
  assert.equal((await curl(['-H', 'Host: localhost:1', `${gateway.root}/health`])).status, 200);
  // Names of this machine in any case, and every 127.x.x.x literal (parley serve --host 127.0.0.2).
  assert.equal((await curl(['-H', 'Host: LOCALHOST', `${gateway.root}/health`])).status, 200);
  assert.equal((await curl(['-H', 'Host: 127.0.0.2:9', `${gateway.root}/health`])).status, 200);
  assert.equal((await curl(['-H', 'Host: localhost.:', `${gateway.root}/health`])).status, 200);  // FQDN, empty port
  assertOpenAiError(await curl(['-H', 'Host: 127.evil.example', `${gateway.root}/health`]), 421);
  // The media type is application/json exactly, parameters allowed.
  assertOpenAiError(await post('{"model": "debate"}', 'application/jsonpatch'), 415, null, 'unsupported_media_type');
  assertOpenAiError(await post('{"model": "debate"}', 'Application/JSON; charset=utf-8'), 400, 'messages');
});

test('model names: percent-escaped in a path, and quoted back safely when cut', async () => {
  const model = await curl([`${gateway.root}/v1/models/deb%61te`]);
  assert.equal(model.status, 200, model.body);
  assert.equal(JSON.parse(model.body).id, 'debate');
  const malformed = await curl([`${gateway.root}/v1/models/deb%zz`]);
  assertOpenAiError(malformed, 404, 'model', 'model_not_found');
  assert.match(JSON.parse(malformed.body).error.message, /The model 'deb%zz' does not exist/);
  // A 200-byte cut inside a two-byte character: still a 404 with a JSON body, not a 500.
  const name = 'a' + 'é'.repeat(150);
  assertOpenAiError(await post(JSON.stringify({ model: name, messages: [{ role: 'user', content: 'q' }] })), 404, 'model',
                    'model_not_found');
  assertOpenAiError(await curl([`${gateway.root}/v1/models/${'a'.repeat(199)}%C3%A9`]), 404, 'model', 'model_not_found');
});

test('a stream is server-sent events: data lines, each a JSON chunk, and [DONE] last', async () => {
  const response = await curl(['-N', '-H', 'Content-Type: application/json', '--data-binary',
                               JSON.stringify({ model: 'debate', stream: true,
                                                messages: [{ role: 'user', content: 'What is the capital of France?' }] }),
                               completions()]);
  assert.equal(response.status, 200);
  assert.match(response.headers['content-type'], /^text\/event-stream/);
  const events = response.body.split('\n\n').filter((event) => event.length > 0);
  for (const event of events) assert.match(event, /^data: /);
  assert.equal(events[events.length - 1], 'data: [DONE]');
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)));
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  const calls = chunks.filter((chunk) => chunk.parley?.progress?.kind === 'call');
  const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason === 'stop');
  // 2 agents × 2 rounds, and a re-ask for each reply the simulator made unreadable (it varies
  // with the generated task id): one chunk per call the summary counts.
  assert.ok(calls.length >= 4);
  assert.equal(calls.length, finish.parley.calls);
  assert.ok(new Set(chunks.map((chunk) => chunk.id)).size === 1);
});
