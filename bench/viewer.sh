#!/usr/bin/env bash
# The web viewer on large runs (docs/performance.md, "Viewer"). Usage:
#   bench/viewer.sh [RUNS]        (default 5; stores kept in $VIEWER_BENCH_DIR, default /tmp/parley-viewer-bench)
# Makes (once; reused while $VIEWER_BENCH_DIR/SIZE/out holds one) two simulated runs of 1,250 and
# 125,000 four-option tasks × single and a two-agent one-round debate × four seeds: 10,000 and
# 1,000,000 debates. Then, on each: bench/viewer_bench (the data layer, --runs RUNS); the time
# `parley view` takes to say it serves; and the server's peak RSS (VmHWM) after the same requests
# (every route; the list's filters, sorts and pages; a search; debates) made RUNS times with curl.
# Last, the 1M store is put back to schema version 2 (its index dropped) and `parley view` timed
# indexing it (the store is version 3 again after). Uses the default build (build/).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
PARLEY=$PWD/build/src/cli/parley
BENCH=$PWD/build/bench/viewer_bench
ROOT=${VIEWER_BENCH_DIR:-/tmp/parley-viewer-bench}
[[ -x $PARLEY && -x $BENCH ]] || { echo "build first: scripts/build.sh" >&2; exit 1; }
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); commit $(git rev-parse --short HEAD)" >&2

make_run() {  # make_run NAME TASKS
  local dir=$ROOT/$1
  [[ -f $dir/out/summary.json ]] && return
  rm -rf "$dir" && mkdir -p "$dir"
  python3 - "$2" >"$dir/tasks.jsonl" <<'EOF'
import random, sys
random.seed(7)
words = "planet river mountain ocean forest desert island valley glacier volcano".split()
for i in range(1, int(sys.argv[1]) + 1):
    print('{"id":"t%06d","question":"Benchmark question %d about the %s: which option is right?",'
          '"options":["w%d","x%d","y%d","z%d"],"answer":"%s","difficulty":0.%d}'
          % (i, i, random.choice(words), i, i, i, i, "ABCD"[i % 4], i % 9 + 1))
EOF
  cat >"$dir/exp.yaml" <<'EOF'
name: viewer-bench
models:
  - {name: sim, backend: simulator}
agents:
  - {name: a1, model: sim}
  - {name: a2, model: sim}
dataset: {path: tasks.jsonl}
protocols:
  - {name: single}
  - {name: debate, agents: 2, rounds: 1}
seeds: [1, 2, 3, 4]
concurrency: 64
EOF
  echo "# $1: generating $(( $2 * 8 )) debates" >&2
  local start=$SECONDS
  (cd "$dir" && "$PARLEY" run exp.yaml --out out --quiet)
  echo "# $1: generated in $(( SECONDS - start )) s; store $(du -h "$dir/out/results.sqlite" | cut -f1)" >&2
}

# serve DIR: starts `parley view DIR --port 0`; sets PID and PORT and the seconds it took to serve.
serve() {
  local log=$ROOT/view.stdout
  : >"$log"
  local start=$(date +%s%N)
  "$PARLEY" view "$1" --port 0 >"$log" 2>"$ROOT/view.stderr" &
  PID=$!
  until grep -q "serving" "$log" 2>/dev/null; do sleep 0.01; done
  SERVE_S=$(awk -v ns=$(( $(date +%s%N) - start )) 'BEGIN { printf "%.2f", ns / 1e9 }')
  PORT=$(sed -E 's|.*127\.0\.0\.1:([0-9]+)/.*|\1|' "$log")
}

requests() {  # the same requests on any store
  local base=http://127.0.0.1:$PORT
  for path in / /assets/viewer.js /assets/viewer.css /assets/chart.js /api/run \
      "/api/debates" "/api/debates?offset=$(( DEBATES / 2 ))" "/api/debates?protocol=debate" "/api/debates?seed=4" \
      "/api/debates?correct=0" "/api/debates?flipped=1" "/api/debates?status=completed" \
      "/api/debates?range=u_sys:0.5:1" "/api/debates?q=glacier" "/api/debates?q=t000123" \
      "/api/debates?sort=tokens&order=desc" "/api/debates?sort=tokens&offset=$(( DEBATES / 2 ))" \
      "/api/debates?sort=metric:tokens_debaters&order=desc&limit=200" "/api/debates?sort=metric:u_sys&offset=$(( DEBATES / 2 ))" \
      "/api/debates?protocol=debate&correct=0&sort=latency&order=desc&limit=200" \
      "/api/debate?task=t000001&protocol=debate&seed=1" "/api/debate?task=t000100&protocol=single&seed=4"; do
    curl -sf -o /dev/null "$base$path" || { echo "request failed: $path" >&2; exit 1; }
  done
}

for size in 10k:1250 1m:125000; do
  name=${size%%:*}
  tasks=${size##*:}
  DEBATES=$(( tasks * 8 ))
  make_run "$name" "$tasks"
  dir=$ROOT/$name/out
  echo "## $name ($DEBATES debates): data layer" >&2
  "$BENCH" "$dir" --runs "$RUNS"
  serve "$dir"
  for _ in $(seq "$RUNS"); do requests; done
  echo "## $name: parley view served after ${SERVE_S} s; peak RSS after $RUNS rounds of requests: $(grep VmHWM /proc/$PID/status)" >&2
  kill -INT "$PID"
  wait "$PID"
done

# Indexing a store of an older parley (schema version 2) once, at 1M debates.
dir=$ROOT/1m/out
sqlite3 "$dir/results.sqlite" "DROP TABLE debate_index; DROP TABLE debate_task; DROP TABLE debate_metric;
  DROP TABLE metric_name; UPDATE meta SET value = '2' WHERE key = 'schema_version';"
serve "$dir"
echo "## 1m: a version-2 store indexed and served after ${SERVE_S} s: $(cat "$ROOT/view.stderr")" >&2
kill -INT "$PID"
wait "$PID"
