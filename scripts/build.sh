#!/usr/bin/env bash
# Configures and builds parley into build/ (Release with debug info, warnings as errors).
# Extra arguments are passed to cmake, e.g. scripts/build.sh -DPARLEY_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${PARLEY_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja "$@" >/dev/null
ninja -C "$build_dir" -j"$(nproc)"
