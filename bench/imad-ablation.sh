#!/usr/bin/env bash
# iMAD App. C.2 on the simulator: the debate trigger trained with FocusCal, each subset of its
# terms, BCE and MSE, and FocusCal with ECE replaced by BCE or MSE; validation AUC, ECE, debate
# rate and beneficial-decision rate, median over seeds. SIMULATED numbers (examples/imad-train.yaml).
# Usage: bench/imad-ablation.sh [SEEDS] [RUN_DIR]   (RUN_DIR: an existing imad-train run to reuse)
source "$(dirname "$0")/simulated-experiment.sh"
SEEDS=${1:-3}
RUN=${2:-}
if [[ -z $RUN ]]; then
  RUN=$WORK/run
  "$PARLEY" run examples/imad-train.yaml --out "$RUN" --quiet
fi
elapsed() { python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$(date +%s.%N)"; }
start=$(date +%s.%N)
"$PARLEY" train-trigger "$RUN" --out "$WORK/m.json" --epochs 1 --examples-out "$WORK/examples.jsonl" --quiet
echo "# feature extraction: $(wc -l <"$WORK/examples.jsonl") responses in $(elapsed "$start") s (with one epoch)" >&2
for loss in focuscal af cp ece af+cp af+ece cp+ece bce mse af+cp+bce af+cp+mse; do
  for seed in $(seq 1 "$SEEDS"); do
    start=$(date +%s.%N)
    "$PARLEY" train-trigger --examples-in "$WORK/examples.jsonl" --out "$WORK/model.json" --loss "$loss" \
      --seed "$seed" --quiet
    python3 -c "import json,sys; v=json.load(open(sys.argv[1]))['metadata']['validation']; \
print(sys.argv[2], v['auc'], v['ece'], v['debate_rate'], v['beneficial_rate'], sys.argv[3])" \
      "$WORK/model.json" "$loss" "$(elapsed "$start")"
  done
done | python3 -c "
import sys, statistics
rows = {}
for line in sys.stdin:
    loss, *values = line.split()
    rows.setdefault(loss, []).append([float(v) for v in values])
print(f\"{'loss':<12} {'AUC':>6} {'ECE':>6} {'debate':>7} {'beneficial':>10} {'train s':>8}   (validation, median of {len(next(iter(rows.values())))} seeds; SIMULATED)\")
for loss, runs in rows.items():
    m = [statistics.median(column) for column in zip(*runs)]
    print(f'{loss:<12} {m[0]:6.3f} {m[1]:6.3f} {100*m[2]:6.1f}% {100*m[3]:9.1f}% {m[4]:8.1f}')
"
