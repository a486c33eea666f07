#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh "$@"
ctest --test-dir "${PARLEY_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
