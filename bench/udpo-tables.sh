#!/usr/bin/env bash
# UDPO's Tables 1–3 on the simulator (SIMULATED): each dataset's questions split in two (U-17),
# policies trained on one half by `parley train-udpo` — UDPO, the MAPPO-style baseline, UDPO
# without each reward term (Table 2) — and every policy debated on the other half by the flat
# `debate` (N = 5, T = 5) with `models[].policy`, next to untrained Standard MAD; then the same
# under attack with m = 1, 2, 3 compromised debaters (Table 3), each method trained under that
# attack. Prints accuracy and U_intra / U_inter / U_sys per method; `parley diagnose` of each run.
# Usage: bench/udpo-tables.sh [QUESTIONS] [ITERATIONS] [DATASETS...]
#   defaults: 800 questions (400 train, 400 evaluate), 40 iterations, csqa truthfulqa gsm8k
source "$(dirname "$0")/udpo-experiment.sh"
LIMIT=${1:-800}
ITERATIONS=${2:-40}
shift 2 || shift $# || true
DATASETS=("$@")
[[ ${#DATASETS[@]} -gt 0 ]] || DATASETS=(csqa truthfulqa gsm8k)

# `train NAME M METHOD ABLATION` trains on $data.train and prints the policy file's path.
train() {
  local name=$1 m=$2 method=$3 ablation=$4 dir="$WORK/$1-m$2-$3-$4"
  {
    udpo_head "dataset: {path: $data.test}"
    echo "  - {name: debate}"
    echo "training: {method: $method, ablation: $ablation, compromised: $m, iterations: $ITERATIONS," \
         "dataset: $data.train}"
  } >"$dir.yaml"
  "$PARLEY" train-udpo "$dir.yaml" --out "$dir" >/dev/null
  echo "$dir/policy.json"
}

for name in "${DATASETS[@]}"; do
  data=$(udpo_dataset "$name" "$LIMIT" "$WORK")
  udpo_split "$data"
  for m in 0 1 2 3; do
    methods=("mappo none" "udpo none")
    if [[ $m -eq 0 ]]; then methods+=("udpo intra" "udpo inter" "udpo sys"); fi
    # Untrained Standard MAD, then each trained method in a run of its own (its agents keep the
    # names a1..a5 the policy file knows).
    {
      udpo_head "dataset: {path: $data.test}"
      echo "  - {name: debate, label: standard-mad, agents: 5, rounds: 5, compromised: $m}"
      echo "seeds: [1]"
    } >"$WORK/$name-m$m-standard-mad.yaml"
    "$PARLEY" run "$WORK/$name-m$m-standard-mad.yaml" --out "$WORK/$name-m$m-0-eval" --quiet >/dev/null
    for spec in "${methods[@]}"; do
      read -r method ablation <<<"$spec"
      label=$method
      [[ $ablation == none ]] || label+="-wo-$ablation"
      policy=$(train "$name" "$m" "$method" "$ablation")
      {
        echo "models:"
        echo "  - {name: $label, backend: simulator, policy: $policy}"
        echo "agents:"
        for i in 1 2 3 4 5; do echo "  - {name: a$i, model: $label, temperature: 0.7}"; done
        echo "dataset: {path: $data.test}"
        echo "protocols:"
        echo "  - {name: debate, label: $label, agents: 5, rounds: 5, compromised: $m}"
        echo "seeds: [1]"
      } >"$WORK/$name-m$m-$label.yaml"
      "$PARLEY" run "$WORK/$name-m$m-$label.yaml" --out "$WORK/$name-m$m-$label-eval" --quiet >/dev/null
    done
  done
  python3 - "$WORK" "$name" <<'PY'
import glob, json, os, sys
work, name = sys.argv[1], sys.argv[2]
print(f"## {name}: evaluated on the held-out half (SIMULATED)")
print(f"{'m':>2} {'method':<16} {'n':>5} {'Acc':>6} {'U_intra':>8} {'U_inter':>8} {'U_sys':>8}")
for m in range(4):
    for path in sorted(glob.glob(f"{work}/{name}-m{m}-*-eval/summary.json")):
        for p in json.load(open(path))["protocols"]:
            metric = lambda k: p["metrics"].get(k, float("nan"))
            print(f"{m:>2} {p['name']:<16} {p['n']:>5} {100 * p['accuracy']:>6.1f} {metric('u_intra'):>8.3f} "
                  f"{metric('u_inter'):>8.3f} {metric('u_sys'):>8.3f}")
PY
done
