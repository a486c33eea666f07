#!/usr/bin/env bash
# MACI Table 4 on the simulator: MACI against one pass, a majority vote of 20 independent
# voters, self-consistency over 20 samples and Liang et al.'s MAD, on the clinical example
# (examples/maci.yaml's data). Acc@1, MRR, ECE, Brier, tokens and rounds. SIMULATED numbers.
# Usage: bench/maci-table4.sh [SEEDS]   (default 3)
source "$(dirname "$0")/maci-experiment.sh"
SEEDS=${1:-3}
{
  maci_head "$(clinical_dataset)"
  cat <<YAML
  - {name: single, agents: [a1]}
  - {name: debate, label: majority-20, agents: 20, rounds: 0}
  - {name: self_consistency, label: self-consistency-20, agents: [a1], samples: 20}
  - {name: mad, label: liang-mad, agents: [a1, a2], judges: [j1]}
  - {name: maci, agents: [a1, a2], judges: [j1, j2, j3], embeddings: embed-sim}
seeds: [$(seq -s, 1 "$SEEDS")]
YAML
} >"$WORK/exp.yaml"
"$PARLEY" run "$WORK/exp.yaml" --out "$WORK/run" --quiet
maci_table "$WORK/run" reciprocal_rank ece brier tokens rounds
