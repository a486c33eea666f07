#!/usr/bin/env bash
# MACI Table 16 (App. I) on the simulator: CL held at 0.9, 0.7, 0.5, 0.3, 0.1 for three rounds
# on the clinical example; per level the mean round-1 D_JS, the peak Î over rounds 1–3 and the
# final-round overlap O, with the Spearman correlation of CL and round-1 D_JS over debates.
# SIMULATED numbers. Usage: bench/maci-table16.sh [SEEDS]   (default 3)
source "$(dirname "$0")/maci-experiment.sh"
SEEDS=${1:-3}
{
  maci_head "$(clinical_dataset)"
  for cl in 0.9 0.7 0.5 0.3 0.1; do
    echo "  - {name: maci, label: cl-$cl, agents: [a1, a2], judges: [j1, j2, j3], embeddings: embed-sim, hold_contentiousness: $cl, max_rounds: 3, stalemate_rounds: 0, information_threshold: 0, dispersion_threshold: 0}"
  done
  echo "seeds: [$(seq -s, 1 "$SEEDS")]"
} >"$WORK/exp.yaml"
"$PARLEY" run "$WORK/exp.yaml" --out "$WORK/run" --quiet
python3 - "$WORK/run/transcripts.jsonl" <<'PY'
import json, sys, statistics, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t = json.loads(line)
    rounds = [json.loads(e["detail"]) for e in t["events"] if e["kind"] == "maci_round"]
    if not rounds:
        continue
    cl = float(t["protocol"].split("-")[1])
    rows[cl].append((rounds[0]["disagreement"], max(r["information_gain"] for r in rounds[:3]), rounds[-1]["overlap"]))
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]: j += 1
        for k in range(i, j + 1): r[order[k]] = (i + j) / 2
        i = j + 1
    return r
def spearman(x, y):
    rx, ry = ranks(x), ranks(y); mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    return num / (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
print(f"{'CL':>4} {'n':>4} {'D_JS round 1':>13} {'peak Î (R1-3)':>14} {'O final':>8}   (mean ± 1.96 SE; SIMULATED)")
cls, djs = [], []
for cl in sorted(rows, reverse=True):
    v = rows[cl]
    cells = []
    for k in range(3):
        xs = [r[k] for r in v]
        cells.append(f"{statistics.mean(xs):.3f} ± {1.96 * statistics.stdev(xs) / len(xs) ** 0.5:.3f}")
    print(f"{cl:4.1f} {len(v):4d} {cells[0]:>13} {cells[1]:>14} {cells[2]:>8}")
    cls += [cl] * len(v); djs += [r[0] for r in v]
print(f"Spearman rho(CL, round-1 D_JS) = {spearman(cls, djs):.3f} over {len(cls)} debates")
PY
