// `parley serve` for the tests: writes a serve file, starts the real binary on a free port, and
// resolves once it prints its address. Paths come from the environment ctest sets
// (tests/sdk/CMakeLists.txt): PARLEY_BIN (default build/src/cli/parley of this checkout) and
// PARLEY_SDK_OUT (scratch; default build/sdk).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoDir = path.resolve(here, '..', '..', '..');
export const parleyBin = process.env.PARLEY_BIN || path.join(repoDir, 'build', 'src', 'cli', 'parley');
export const outputDir = process.env.PARLEY_SDK_OUT || path.join(repoDir, 'build', 'sdk');

// A directory under outputDir, emptied first.
export function scratchDir(name) {
  const dir = path.join(outputDir, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// A serve file: `models` and `agents` as YAML lines, `serve` the serve: section's lines.
export function serveFile({ models, agents, serve }) {
  return ['models:', ...models.map((m) => `  - ${m}`), 'agents:', ...agents.map((a) => `  - ${a}`), 'serve:',
          ...serve.map((line) => `  ${line}`)].join('\n') + '\n';
}

// Starts `parley serve` on FILE's text in `dir` (store dir/store). Resolves to
// { baseURL, root, proc, stderr(), stop() }; rejects if it exits or says nothing within 20 s.
export async function startGateway(dir, yaml, { args = [], env = {} } = {}) {
  if (!fs.existsSync(parleyBin)) throw new Error(`no parley binary at ${parleyBin} (set PARLEY_BIN, or build first)`);
  const file = path.join(dir, 'serve.yaml');
  fs.writeFileSync(file, yaml);
  const proc = spawn(parleyBin, ['serve', file, '--port', '0', '--store', path.join(dir, 'store'), ...args],
                     { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const root = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`parley serve said nothing in 20 s; stderr:\n${stderr}`)), 20_000);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = stdout.match(/at (http:\/\/\S+)\/v1/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`parley serve exited (${code ?? signal}) before listening; stderr:\n${stderr}`));
    });
  });
  return {
    root,
    baseURL: `${root}/v1`,
    proc,
    stderr: () => stderr,
    // SIGTERM, then the exit status.
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

// Runs parley with `args`; resolves to { code, stdout, stderr }.
export function runParley(args) {
  return new Promise((resolve) => {
    const proc = spawn(parleyBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk) => { stdout += chunk; });
    proc.stderr.on('data', (chunk) => { stderr += chunk; });
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// parley with `args` (report, compare) on a served store once the debates answered so far are
// committed: the gateway commits every 50 ms (docs/formats.md, "parley serve").
export async function runParleyOnStore(args) {
  await sleep(200);
  return runParley(args);
}

// Waits until `predicate()` holds, polling; throws with `what` after `timeoutMs`.
export async function waitFor(predicate, what, timeoutMs = 10_000) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
