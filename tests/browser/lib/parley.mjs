// The real parley binary for the browser tests, and the two runs they look at:
//   runSimulated(dir)  fixtures/simulated.yaml on the built-in simulator;
//   runHostile(dir)    fixtures/hostile.yaml against fake_backend.mjs, with the API key in the
//                      environment variable the experiment names.
// Paths come from the environment ctest sets (tests/browser/CMakeLists.txt):
//   PARLEY_BIN          the parley executable (default: build/src/cli/parley of this checkout);
//   PARLEY_BROWSER_OUT  scratch and output directory (default: build/browser of this checkout).

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { browserTestDir } from './browser.mjs';
import { readTasks, startFakeBackend } from './fake_backend.mjs';
import { apiKeyEnv, apiKeySecret } from './hostile.mjs';

export const repoDir = path.resolve(browserTestDir, '..', '..');
export const fixturesDir = path.join(browserTestDir, 'fixtures');
export const parleyBin = process.env.PARLEY_BIN || path.join(repoDir, 'build', 'src', 'cli', 'parley');
export const outputDir = process.env.PARLEY_BROWSER_OUT || path.join(repoDir, 'build', 'browser');

export const hostileExperiment = path.join(fixturesDir, 'hostile.yaml');
export const hostileTasksFile = path.join(fixturesDir, 'hostile-tasks.jsonl');
export const simulatedExperiment = path.join(fixturesDir, 'simulated.yaml');

// A directory under outputDir, emptied first.
export function scratchDir(name) {
  const dir = path.join(outputDir, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Runs parley with `args`; resolves to { code, stdout, stderr } whatever the exit code.
export function runParley(args, { env = {}, timeoutMs = 60_000 } = {}) {
  if (!fs.existsSync(parleyBin)) throw new Error(`no parley binary at ${parleyBin} (set PARLEY_BIN, or build first)`);
  return new Promise((resolve) => {
    execFile(parleyBin, args, { env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 },
             (error, stdout, stderr) => {
               const code = error ? (typeof error.code === 'number' ? error.code : error.signal || -1) : 0;
               resolve({ code, stdout, stderr });
             });
  });
}

function describe(result) {
  return `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
}

// `parley run fixtures/simulated.yaml --out DIR --quiet`; throws unless it exits 0.
export async function runSimulated(dir) {
  const result = await runParley(['run', simulatedExperiment, '--out', dir, '--quiet']);
  if (result.code !== 0) throw new Error(`parley run (simulated) failed: ${describe(result)}`);
  return result;
}

// `parley run fixtures/hostile.yaml --out DIR --quiet` against a fresh fake backend; throws
// unless it exits 0. Resolves to { result, backend } (the backend closed, its requests kept).
export async function runHostile(dir) {
  const backend = await startFakeBackend({ tasks: readTasks(hostileTasksFile), apiKey: apiKeySecret });
  try {
    const result = await runParley(
        ['run', hostileExperiment, '--out', dir, '--quiet', '--set', `models.0.base_url=${backend.baseUrl}`],
        { env: { [apiKeyEnv]: apiKeySecret } });
    if (result.code !== 0) throw new Error(`parley run (hostile) failed: ${describe(result)}`);
    return { result, backend };
  } finally {
    await backend.close();
  }
}

// The files under `dir` (recursively) whose bytes contain `needle`.
export function filesContaining(dir, needle) {
  const hits = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (fs.readFileSync(file).includes(needle)) hits.push(file);
  }
  return hits;
}
