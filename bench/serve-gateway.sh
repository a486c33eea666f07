#!/usr/bin/env bash
# parley serve's benchmark (method: docs/performance.md, "Gateway"). Usage:
#   bench/serve-gateway.sh [SECONDS] [RUNS]
# Builds a Release tree in build-bench/, then for 1, 100 and 1,000 concurrent clients (wrk, one
# connection each, keep-alive) measures, RUNS times for SECONDS each:
#   serve-sim        the gateway on the simulator, model debate-3x2 (9 calls per request): requests
#                    per second and the gateway's CPU per simulated call;
#   serve-loopback   the gateway in front of a loopback backend (fake_openai_server, 20 ms per
#                    reply), model single (1 call per request): requests per second, the gateway's
#                    CPU per backend call, p50/p99 latency;
#   backend-direct   wrk straight to the same backend: its own p50/p99, which the gateway's are
#                    compared with (the latency the gateway adds).
# Prints one JSON line per measurement on stderr and the medians' table on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN=${1:-10}
RUNS=${2:-3}
BUILD=${PARLEY_BENCH_BUILD:-build-bench}  # PARLEY_BENCH_BUILD=build: the tree already built (no Release build)
scripts/setup.sh --bench
[[ -f $BUILD/build.ninja ]] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLEY_BUILD_TESTS=ON -DPARLEY_BUILD_BENCH=ON >"$BUILD.log" || { cat "$BUILD.log" >&2; exit 1; }
ninja -C "$BUILD" parley fake_openai_server >>"$BUILD.log" || { tail -40 "$BUILD.log" >&2; exit 1; }
PARLEY=$PWD/$BUILD/src/cli/parley
SERVER=$PWD/$BUILD/tests/support/fake_openai_server
WORK=$(mktemp -d)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"

MACHINE="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), Linux $(uname -r)"
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include bench CMakeLists.txt || echo "+uncommitted changes")
echo "# machine: $MACHINE; commit $COMMIT; $RUNS runs of ${SECONDS_PER_RUN} s" >&2

"$SERVER" --delay-ms 20 >"$WORK/backend.port" 2>"$WORK/backend.log" &
PIDS+=($!)
for _ in $(seq 1 100); do [[ -s $WORK/backend.port ]] && break; sleep 0.05; done
BACKEND="http://127.0.0.1:$(head -1 "$WORK/backend.port")"

cat >"$WORK/serve.yaml" <<YAML
models:
  - {name: sim, backend: simulator}
  - {name: backend, backend: openai, base_url: "$BACKEND/v1", model: fake, max_concurrency: 2000}
agents:
  - {name: a1, model: sim}
  - {name: a2, model: sim}
  - {name: a3, model: sim}
  - {name: b1, model: backend}
serve:
  max_debates: 2000
  max_waiting: 2000
  models:
    - {model: debate-3x2, protocol: debate, agents: [a1, a2, a3], rounds: 2}
    - {model: single, protocol: single, agents: [b1]}
YAML

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# measure LABEL URL MODEL CLIENTS CALLS_PER_REQUEST GATEWAY_PID(or -) → one JSON line
measure() {
  local label=$1 url=$2 model=$3 clients=$4 calls=$5 pid=$6 before=0 after=0 out
  [[ $pid != - ]] && before=$(cpu_ticks "$pid")
  out=$(PARLEY_MODEL=$model wrk -t"$(( clients < 2 ? 1 : 2 ))" -c"$clients" -d"${SECONDS_PER_RUN}s" --timeout 30s --latency \
        -s bench/serve-wrk.lua "$url")
  [[ $pid != - ]] && after=$(cpu_ticks "$pid")
  /usr/bin/python3 - "$label" "$clients" "$calls" "$((after - before))" "$(getconf CLK_TCK)" "$pid" <<PY
import json, re, sys
label, clients, calls, ticks, hz, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
out = """$out"""
if "Non-2xx" in out or "Socket errors" in out:
    sys.exit("bench/serve-gateway.sh: wrk saw errors:\n" + out)
unit = {"us": 1e-3, "ms": 1.0, "s": 1e3}
def ms(text):
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    return float(m.group(1)) * unit[m.group(2)]
lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
requests = int(re.search(r"(\d+) requests in", out).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
line = {"label": label, "clients": clients, "requests": requests, "requests_per_s": rps,
        "p50_ms": ms(lat["50"]), "p99_ms": ms(lat["99"])}
if pid != "-":
    line["gateway_cpu_us_per_call"] = ticks / hz * 1e6 / (requests * calls)
print(json.dumps(line))
PY
}

for run in $(seq 1 "$RUNS"); do
  for clients in 1 100 1000; do
    "$PARLEY" serve "$WORK/serve.yaml" --port 0 --store "$WORK/store-$run-$clients" --quiet >"$WORK/gw.out" 2>"$WORK/gw.log" &
    gw=$!
    PIDS+=($gw)
    for _ in $(seq 1 200); do grep -q 'at http' "$WORK/gw.out" 2>/dev/null && break; sleep 0.05; done
    GATEWAY=$(sed -n 's|.* at \(http://[^/]*\)/v1.*|\1|p' "$WORK/gw.out")
    measure serve-sim "$GATEWAY" debate-3x2 "$clients" 9 "$gw" | tee -a "$WORK/lines.jsonl" >&2
    measure serve-loopback "$GATEWAY" single "$clients" 1 "$gw" | tee -a "$WORK/lines.jsonl" >&2
    kill -TERM "$gw"; wait "$gw" || true
    measure backend-direct "$BACKEND" fake "$clients" 1 - | tee -a "$WORK/lines.jsonl" >&2
  done
done

/usr/bin/python3 - "$WORK/lines.jsonl" "$COMMIT" "$MACHINE" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
def med(label, clients, key):
    values = [l[key] for l in lines if l["label"] == label and l["clients"] == clients and key in l]
    return statistics.median(values) if values else float("nan")
print(f"Commit {sys.argv[2]}; {sys.argv[3]}; medians of {len([l for l in lines if l['label'] == 'backend-direct']) // 3} runs.\n")
print("| clients | sim: requests/s | sim: gateway CPU µs/call | loopback: requests/s | loopback: gateway CPU µs/call | loopback p50 / p99 ms | backend alone p50 / p99 ms | added p50 / p99 ms |")
print("|---|---|---|---|---|---|---|---|")
for c in (1, 100, 1000):
    p50, p99 = med("serve-loopback", c, "p50_ms"), med("serve-loopback", c, "p99_ms")
    b50, b99 = med("backend-direct", c, "p50_ms"), med("backend-direct", c, "p99_ms")
    print(f"| {c} | {med('serve-sim', c, 'requests_per_s'):.0f} | {med('serve-sim', c, 'gateway_cpu_us_per_call'):.1f} | "
          f"{med('serve-loopback', c, 'requests_per_s'):.0f} | {med('serve-loopback', c, 'gateway_cpu_us_per_call'):.1f} | "
          f"{p50:.2f} / {p99:.2f} | {b50:.2f} / {b99:.2f} | {p50 - b50:.2f} / {p99 - b99:.2f} |")
PY
