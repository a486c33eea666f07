// A scriptable OpenAI-compatible backend for parley serve's tests: node's http module on
// 127.0.0.1, a port the OS picks. Every request is recorded with when it arrived and whether the
// client closed its connection before the reply (how a cancelled call looks from a server).
//
// `behave(body, index)` decides each reply: { delayMs, status, error, content, n } (all
// optional). By default it answers at once, with "Answer: B" for a choice question (options in
// the prompt) and "Answer: Paris" otherwise, and honours "n". `rejectN` / `rejectLogprobs`
// answer 400 naming the parameter, as servers without those capabilities do.

import http from 'node:http';

function promptText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}

export function defaultContent(body) {
  const prompt = promptText(body);
  if (/JSON object/.test(prompt)) {
    // mad's judge: settle on the affirmative side's answer.
    return JSON.stringify({ 'Preference': 'Yes', 'Supported Side': 'Affirmative', 'Reason': 'clear', 'Debate Answer': 'B' });
  }
  return /\bA[).:]\s/.test(prompt) || /\(A\)/.test(prompt)
    ? 'Plants take in carbon dioxide for photosynthesis.\nAnswer: B\nConfidence: 80%'
    : 'It is Paris.\nAnswer: Paris\nConfidence: 80%';
}

export async function startBackend({ behave = () => ({}), rejectN = false, rejectLogprobs = false } = {}) {
  const requests = [];
  const sockets = new Set();
  const server = http.createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { raw += chunk; });
    request.on('end', () => {
      let body = {};
      try { body = JSON.parse(raw); } catch { /* recorded as {} */ }
      const record = { body, arrivedAt: Date.now(), closedEarly: false, answered: false, headers: request.headers };
      requests.push(record);
      const index = requests.length - 1;
      const send = (status, payload) => {
        if (record.closedEarly) return;
        record.answered = true;
        const text = JSON.stringify(payload);
        response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        response.end(text);
      };
      if (rejectN && Number.isInteger(body.n) && body.n > 1) {
        send(400, { error: { message: "'n' > 1 is not supported by this server", type: 'invalid_request_error', param: 'n' } });
        return;
      }
      if (rejectLogprobs && body.logprobs) {
        send(400, { error: { message: 'logprobs are not supported', type: 'invalid_request_error', param: 'logprobs' } });
        return;
      }
      const plan = behave(body, index) || {};
      const reply = () => {
        if (plan.status && plan.status !== 200) {
          send(plan.status, { error: { message: plan.error || `injected ${plan.status}`, type: 'server_error' } });
          return;
        }
        const count = Number.isInteger(body.n) && body.n > 1 ? body.n : 1;
        const content = plan.content ?? defaultContent(body);
        const choices = [];
        for (let i = 0; i < count; ++i) {
          choices.push({ index: i, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' });
        }
        const promptTokens = Math.ceil(promptText(body).length / 4);
        const completionTokens = Math.ceil((content.length * count) / 4);
        send(200, {
          id: `cmpl-${index}`, object: 'chat.completion', created: 1700000000, model: body.model, choices,
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens,
                   total_tokens: promptTokens + completionTokens },
        });
      };
      const timer = plan.delayMs ? setTimeout(reply, plan.delayMs) : null;
      response.on('close', () => {
        if (!record.answered) {
          record.closedEarly = true;
          record.closedAt = Date.now();
          if (timer) clearTimeout(timer);
        }
      });
      if (!timer) reply();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    // Requests the backend has not answered and whose connection is still open.
    pending: () => requests.filter((r) => !r.answered && !r.closedEarly),
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(resolve);
    }),
  };
}
