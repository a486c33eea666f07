#!/usr/bin/env bash
# UDPO's diagnosis (§3.2, Figs. 2–4; App. C.3, Figs. 9–10, Table 6) on the simulator: Standard
# MAD (the flat `debate`, N = 5, T = 5) natural and with m = 1, 2, 3 compromised debaters, on
# CommonsenseQA dev, TruthfulQA MC1 and GSM8K; `parley diagnose` per run: failed vs successful
# U (Welch t, Cohen's d), the correlation of each U with correctness, selective prediction.
# SIMULATED numbers. Usage: [ADVERSARY_YIELD=y] bench/udpo-diagnosis.sh [QUESTIONS] [DATASETS...]
#   defaults: 400 questions of each of csqa truthfulqa gsm8k; ADVERSARY_YIELD sets the simulator's
#   adversary_yield (eq. 26b; shipped 0, the adversary never yields)
source "$(dirname "$0")/udpo-experiment.sh"
LIMIT=${1:-400}
shift || true
DATASETS=("$@")
[[ ${#DATASETS[@]} -gt 0 ]] || DATASETS=(csqa truthfulqa gsm8k)
model_params=""
if [[ -n ${ADVERSARY_YIELD:-} ]]; then
  python3 - "$ADVERSARY_YIELD" "$WORK/params.json" <<'PY'
import json, sys
params = json.load(open("data/simulator/params-v1.json"))
params["adversary_yield"] = float(sys.argv[1])
json.dump(params, open(sys.argv[2], "w"), indent=1)
PY
  model_params=", params: $WORK/params.json"
  echo "# adversary_yield = $ADVERSARY_YIELD" >&2
fi
for name in "${DATASETS[@]}"; do
  {
    udpo_head "dataset: {path: $(udpo_dataset "$name" "$LIMIT" "$WORK")}" |
      sed "s|profile: default}|profile: default$model_params}|"
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
