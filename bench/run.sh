#!/usr/bin/env bash
# Runs parley's benchmarks (method: docs/performance.md). Usage: bench/run.sh [RUNS]
# Builds a Release tree in build-bench/, generates a synthetic task file, then measures with
# procbench: simulated calls per second on one core, engine CPU per call against a loopback
# server beside wrk's and a Python asyncio orchestrator's against the same server, and peak RSS
# with 10,000 debates in flight. Prints one JSON line per run and median on stderr, then the
# table of docs/performance.md on stdout, naming the commit measured.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=build-bench
scripts/setup.sh --bench
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLEY_BUILD_TESTS=ON -DPARLEY_BUILD_BENCH=ON >"$BUILD.log" || { cat "$BUILD.log" >&2; exit 1; }
ninja -C "$BUILD" parley procbench fake_openai_server >>"$BUILD.log" || { tail -40 "$BUILD.log" >&2; exit 1; }
PARLEY=$BUILD/src/cli/parley
PROCBENCH=$BUILD/bench/procbench
SERVER=$BUILD/tests/support/fake_openai_server
WORK=$(mktemp -d)
SERVER_PID=
cleanup() { [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

# 10,000 four-option questions; the fake server answers them by a hash of the prompt.
for i in $(seq 1 10000); do
  printf '{"id":"t%d","question":"Benchmark question number %d: which option is right?","options":["w%d","x%d","y%d","z%d"],"answer":"B","difficulty":0.5}\n' \
    "$i" "$i" "$i" "$i" "$i" "$i"
done >"$WORK/tasks.jsonl"
cp bench/*.yaml "$WORK/"

start_server() {  # start_server DELAY_MS -> sets SERVER_PID and PORT
  "$SERVER" --delay-ms "$1" >"$WORK/port" 2>"$WORK/server.log" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do [[ -s $WORK/port ]] && break; sleep 0.05; done
  PORT=$(head -1 "$WORK/port")
}
stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; cat "$WORK/server.log" >&2; SERVER_PID=; }

MACHINE="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r)"
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include bench CMakeLists.txt || echo "+uncommitted changes")
echo "# machine: $MACHINE; commit $COMMIT" >&2
# Every procbench line goes to stderr; the medians are kept for the table.
measure() { "$PROCBENCH" "$@" | tee -a "$WORK/medians.jsonl" >&2; }

# 1. Simulated calls per second, pinned to one core.
measure --runs "$RUNS" --label simulated-one-core --cpu 0 --summary "$WORK/sim/summary.json" --clean "$WORK/sim" -- \
  "$PARLEY" run "$WORK/sim.yaml" --out "$WORK/sim" --quiet

# 2. Engine CPU per call against a loopback server answering at once (server in its own process).
start_server 0
measure --runs "$RUNS" --label http-cpu-per-call --summary "$WORK/http/summary.json" --clean "$WORK/http" -- \
  "$PARLEY" run "$WORK/http.yaml" --out "$WORK/http" --quiet --set "models.0.base_url=http://127.0.0.1:$PORT/v1"
# The same 9,000 calls from a best-case Python asyncio + aiohttp orchestrator, and wrk's floor.
measure --runs "$RUNS" --label python-asyncio-cpu-per-call --summary "$WORK/py/summary.json" -- \
  /usr/bin/python3 bench/asyncio_orchestrator.py --url "http://127.0.0.1:$PORT/v1" --tasks "$WORK/tasks.jsonl" \
  --limit 1000 --summary "$WORK/py/summary.json"
measure --runs "$RUNS" --label wrk-cpu-per-request --summary "$WORK/wrk/summary.json" -- \
  bench/wrk_requests.sh "http://127.0.0.1:$PORT" 5 "$WORK/wrk/summary.json"
stop_server

# 3. Peak RSS with 10,000 debates in flight: the server holds every answer for 2 s.
start_server 2000
measure --runs "$RUNS" --label rss-10k-in-flight --summary "$WORK/rss/summary.json" --clean "$WORK/rss" -- \
  "$PARLEY" run "$WORK/rss.yaml" --out "$WORK/rss" --quiet --set "models.0.base_url=http://127.0.0.1:$PORT/v1"
stop_server

/usr/bin/python3 bench/table.py "$WORK/medians.jsonl" --runs "$RUNS" --commit "$COMMIT" --machine "$MACHINE"
