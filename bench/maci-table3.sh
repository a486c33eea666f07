#!/usr/bin/env bash
# MACI Table 3 on the simulator, on the Kaggle symptom-to-disease set in
# ../shared/data/symptom_disease (41 diseases; converted on the fly, see maci-experiment.sh):
# full MACI and its ablations — CL held high (0.9) or low (0.3), no Q gate, uniform weights —
# plus the scheduled variant (App. L's UCB). Acc@1 and ECE. SIMULATED numbers.
# Usage: bench/maci-table3.sh [SEEDS] [CASES_PER_DISEASE]   (defaults 3, 3)
source "$(dirname "$0")/maci-experiment.sh"
SEEDS=${1:-3}
PER=${2:-3}
mkdir -p "$WORK/data"
{
  maci_head "$(maci_symptom_data "$PER" "$WORK/data")"
  entry='agents: [a1, a2], judges: [j1, j2, j3], embeddings: embed-sim'
  cat <<YAML
  - {name: maci, label: full, $entry}
  - {name: maci, label: no-schedule-high, $entry, hold_contentiousness: 0.9}
  - {name: maci, label: no-schedule-low, $entry, hold_contentiousness: 0.3}
  - {name: maci, label: no-q-gate, $entry, quality_gate: false}
  - {name: maci, label: uniform-weights, $entry, uniform_weights: true}
  - {name: maci, label: ucb-scheduler, $entry, scheduler: ucb}
seeds: [$(seq -s, 1 "$SEEDS")]
YAML
} >"$WORK/exp.yaml"
"$PARLEY" run "$WORK/exp.yaml" --out "$WORK/run" --quiet
maci_table "$WORK/run" ece brier reciprocal_rank tokens rounds
