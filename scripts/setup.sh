#!/usr/bin/env bash
# Installs parley's build and test dependencies from Debian's archive; with --bench, also the
# references bench/run.sh measures parley against (wrk, Python's aiohttp). Then the node tests'
# packages (tests/browser/, tests/sdk/; docs/testing.md) with `npm ci`.
# Idempotent: does nothing when every package is already present and each tests/*/node_modules
# is newer than its package-lock.json; otherwise runs `apt-get update` once and
# `apt-get install` for the missing packages, and `npm ci` when node_modules is missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  libcurl4-openssl-dev   # HTTP client (multi interface): https, proxies, names to look up
  libboost-dev           # Boost.Beast (headers only): parses replies on the native plain-http transport
  nlohmann-json3-dev     # JSON at the edges
  libsimdjson-dev        # fast JSON reading on the hot path (server replies, stored transcripts)
  libyaml-cpp-dev        # experiment files
  libcli11-dev           # command line
  libsqlite3-dev         # result store
  libfmt-dev             # formatting
  libeigen3-dev          # the iMAD trigger classifier (dense linear algebra)
  libxapian-dev          # MACI evidence retrieval: BM25 over an in-memory index (src/evidence)
  liblink-grammar-dev link-grammar-dictionaries-en   # iMAD features: parse depth, parts of speech
  libgtest-dev libgmock-dev   # tests
  libbenchmark-dev       # micro-benchmarks of engine work (bench/maci_controller.cc)
  libjs-chart.js         # Chart.js, inlined into the HTML report and served by the viewer (src/web)
  libssl-dev             # OpenSSL's SHA-256: the report test recomputes the page's CSP hashes
  libcpp-httplib-dev     # cpp-httplib: the HTTP server of `parley view`
  chromium               # headless browser for the browser tests (tests/browser/)
)
# node and npm run the browser tests (playwright-core); Debian's when the machine has none.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
# `setup.sh --bench`: also what bench/run.sh compares parley with (docs/performance.md).
if [ "${1:-}" = "--bench" ]; then
  packages+=(wrk python3-aiohttp)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  echo "setup: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The node tests' packages, exactly as each package-lock.json pins them: playwright-core for the
# browser tests (tests/browser/), the official openai client for parley serve's (tests/sdk/).
for dir in tests/browser tests/sdk; do
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    echo "setup: npm ci in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$dir/node_modules"
  fi
done
