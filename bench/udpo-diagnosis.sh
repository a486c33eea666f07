#!/usr/bin/env bash
# UDPO's diagnosis (§3.2, Figs. 2–4; App. C.3, Figs. 9–10, Table 6) on the simulator: Standard
# MAD (the flat `debate`, N = 5, T = 5) natural and with m = 1, 2, 3 compromised debaters, on
# CommonsenseQA dev, TruthfulQA MC1 and GSM8K; `parley diagnose` per run: failed vs successful
# U (Welch t, Cohen's d), the correlation of each U with correctness, selective prediction.
# SIMULATED numbers. Usage: bench/udpo-diagnosis.sh [QUESTIONS] [DATASETS...]
#   defaults: 400 questions of each of csqa truthfulqa gsm8k
source "$(dirname "$0")/udpo-experiment.sh"
LIMIT=${1:-400}
shift || true
DATASETS=("$@")
[[ ${#DATASETS[@]} -gt 0 ]] || DATASETS=(csqa truthfulqa gsm8k)
for name in "${DATASETS[@]}"; do
  {
    udpo_head "dataset: {path: $(udpo_dataset "$name" "$LIMIT" "$WORK")}"
    for m in 0 1 2 3; do
      echo "  - {name: debate, label: m$m, agents: 5, rounds: 5, compromised: $m}"
    done
    echo "seeds: [1]"
  } >"$WORK/$name.yaml"
  "$PARLEY" run "$WORK/$name.yaml" --out "$WORK/$name" --quiet >/dev/null
  echo "## $name ($LIMIT questions; SIMULATED)"
  "$PARLEY" diagnose "$WORK/$name" --baseline m0
  "$PARLEY" diagnose "$WORK/$name" --json >"$WORK/$name-diagnosis.json"
done
