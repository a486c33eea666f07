# Sourced by the benchmarks that run experiments on the simulator (imad-ablation.sh,
# svr-mad-comparison.sh): works from the repository root with the default build's parley, in a
# scratch directory removed on exit, and notes the machine on stderr.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PARLEY=build/src/cli/parley
[[ -x $PARLEY ]] || scripts/build.sh >/dev/null
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" >&2
