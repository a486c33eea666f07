#!/usr/bin/env bash
# Long fuzzing runs with libFuzzer: builds the fuzz targets with clang and ASan into
# build-fuzz/ and runs each for SECONDS (default 600), one after another, starting from the
# corpus in fuzz/corpus/<target> and keeping what libFuzzer finds in build-fuzz/corpus/<target>.
# A crash leaves its input in build-fuzz/crash-*; reproduce it with
#   build-fuzz/fuzz/<target>_fuzz build-fuzz/crash-...
# Usage: fuzz/run.sh [SECONDS] [TARGET...]   (targets: answers tasks response yaml)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(answers tasks response yaml); fi
build_dir=build-fuzz
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DPARLEY_FUZZ=ON -DPARLEY_WERROR=OFF -DPARLEY_BUILD_TESTS=OFF -DPARLEY_BUILD_BENCH=OFF >/dev/null
ninja -C "$build_dir" "${targets[@]/%/_fuzz}"
for target in "${targets[@]}"; do
  corpus="$build_dir/corpus/$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s" >&2
  (cd "$build_dir" && "fuzz/${target}_fuzz" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 \
     -max_len=65536 "corpus/$target" "../fuzz/corpus/$target") 2>&1 | tail -n 25
done
