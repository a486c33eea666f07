// A fake OpenAI-compatible server for the browser tests: node's http module on 127.0.0.1 and
// a port the OS picks. Its "model" writes hostile text (hostile.mjs) in front of a reply parley
// can read, so debates complete and their transcripts carry markup for the pages to show.
//
//   POST /v1/chat/completions  the task is found by its question in the prompt (tasks given at
//                              start); debaters answer "Answer: X" + "Confidence: N%": a first
//                              turn right, a later one wrong for about a third of the requests
//                              (by a hash of the request), so debates change their minds; a judge
//                              asked for a JSON object (mad's verdict) settles the debate on a
//                              wrong answer with a hostile "Reason", so every unit the single
//                              agent got right is one mad harmed; `n` choices.
//   GET  /v1/models            one model, "fake-hostile".
// Every request must carry `Authorization: Bearer <apiKey>` (else 401; apiKey null: no check), so
// a run proves the key reached the server through the experiment's api_key_env. The server
// records each request.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

import { hostileReasoning, hostileSnippets } from './hostile.mjs';

export const fakeModel = 'fake-hostile';

// Reads a parley JSONL task file (docs/formats.md, "parley JSONL").
export function readTasks(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}

function letter(index) {
  return String.fromCharCode('A'.charCodeAt(0) + index);
}

function goldLetter(task) {
  if (typeof task.answer === 'number') return letter(task.answer);
  if (/^[A-Za-z]$/.test(task.answer)) return task.answer.toUpperCase();
  return letter(task.options.indexOf(task.answer));
}

// A wrong free-text answer: markup, as a model might write one.
export const hostileWrongText = '<img src=x onerror="window.__pwned=38">Atlantis';

// The answer the fake model gives to `task`: right unless `wrong`.
export function modelAnswer(task, wrong) {
  if (task.options) {
    const gold = goldLetter(task);
    if (!wrong) return gold;
    const other = (gold.charCodeAt(0) - 'A'.charCodeAt(0) + 1) % task.options.length;
    return letter(other);
  }
  const type = task.answer_type || (typeof task.answer === 'number' ? 'number' : 'text');
  if (type === 'number') return String(wrong ? Number(task.answer) + 1 : task.answer);
  return wrong ? hostileWrongText : String(task.answer);
}

function contentText(message) {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part) => part.text || '').join('');
  return '';
}

// Deterministic in [0, 1) from the text.
function unitHash(text) {
  return crypto.createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

function debaterReply(task, firstTurn, seedText) {
  const answer = modelAnswer(task, !firstTurn && unitHash(seedText) < 0.35);
  return `${hostileReasoning()}\nAnswer: ${answer}\nConfidence: 80%`;
}

// mad's judge: a verdict that settles the debate in round 1 (docs/protocols.md, "mad").
function verdictReply(task) {
  return JSON.stringify({
    'Preference': 'Yes',
    'Supported Side': 'Affirmative',
    'Reason': hostileSnippets.join(' '),
    'Debate Answer': modelAnswer(task, true),
  });
}

function sendJson(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function sendError(response, status, message) {
  sendJson(response, status, { error: { message, type: status === 401 ? 'authentication_error' : 'invalid_request_error' } });
}

function completion(request, tasks) {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const prompt = messages.map(contentText).join('\n');
  const task = tasks.find((candidate) => prompt.includes(candidate.question));
  if (!task) return null;
  const users = messages.filter((message) => message.role === 'user');
  const last = users.length ? contentText(users[users.length - 1]) : '';
  const asksJson = /JSON object/.test(last);
  const firstTurn = !messages.some((message) => message.role === 'assistant');
  const count = Number.isInteger(request.n) && request.n > 1 ? request.n : 1;
  const choices = [];
  let completionChars = 0;
  for (let i = 0; i < count; ++i) {
    const seedText = `${prompt}#${i}#${request.temperature}`;
    const content = asksJson ? verdictReply(task) : debaterReply(task, firstTurn, seedText);
    completionChars += content.length;
    choices.push({ index: i, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' });
  }
  const promptTokens = Math.ceil(prompt.length / 4);
  const completionTokens = Math.ceil(completionChars / 4);
  return {
    id: 'chatcmpl-fake-hostile',
    object: 'chat.completion',
    created: 1700000000,
    model: fakeModel,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

// Starts the server. Returns { baseUrl, port, requests, close() }; requests holds
// { method, path, authorized, answered } per request, in arrival order (answered: a completion
// was sent).
export async function startFakeBackend({ tasks, apiKey }) {
  const requests = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const authorized = apiKey === null || request.headers.authorization === `Bearer ${apiKey}`;
      const entry = { method: request.method, path: request.url, authorized, answered: false };
      requests.push(entry);
      if (!authorized) return sendError(response, 401, 'fake server: missing or wrong API key');
      if (request.method === 'GET' && request.url === '/v1/models') {
        return sendJson(response, 200, { object: 'list', data: [{ id: fakeModel, object: 'model', owned_by: 'parley-tests' }] });
      }
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        return sendError(response, 404, `fake server: no route ${request.method} ${request.url}`);
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return sendError(response, 400, 'fake server: the body is not JSON');
      }
      if (body.stream) return sendError(response, 400, 'fake server: streaming is not supported');
      const reply = completion(body, tasks);
      if (!reply) return sendError(response, 400, 'fake server: no known task question in the prompt');
      entry.answered = true;
      sendJson(response, 200, reply);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
