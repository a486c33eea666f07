# Sourced by the MACI benchmarks (maci-table3.sh, maci-table4.sh, maci-table16.sh): the shared
# setup of simulated-experiment.sh, and `maci_table RUN METRIC...` printing per protocol the
# accuracy and the requested summary metrics (SIMULATED numbers).
source "$(dirname "${BASH_SOURCE[0]}")/simulated-experiment.sh"

# The experiment file's head for MACI benchmarks: models, agents and a dataset (clinical by
# default; `symptom` converts ../shared/data/symptom_disease, see maci_symptom_data).
maci_head() {
  local data=$1
  cat <<YAML
models:
  - {name: sim, backend: simulator, profile: default}
  - {name: judge-sim, backend: simulator, profile: strong}
  - {name: embed-sim, backend: simulator}
agents:
  - {name: a1, model: sim, temperature: 0.7}
  - {name: a2, model: sim, temperature: 0.7}
  - {name: j1, model: judge-sim, temperature: 0.3}
  - {name: j2, model: judge-sim, temperature: 0.3}
  - {name: j3, model: judge-sim, temperature: 0.3}
$data
protocols:
YAML
}

clinical_dataset() {
  printf 'dataset: {path: %s/examples/data/clinical-tasks.jsonl, labels: %s/examples/data/clinical-labels.yaml, evidence: %s/examples/data/clinical-evidence.jsonl}\n' \
    "$PWD" "$PWD" "$PWD"
}

# ../shared/data/symptom_disease (Kaggle "Disease Symptom Prediction", 41 diseases): its 304
# distinct rows, a stratified sample of up to PER_DISEASE cases per disease as label tasks, the
# 41 labels (names stripped), and an evidence corpus of one document per disease listing its
# symptoms by frequency over dataset.csv.
maci_symptom_data() {
  local per_disease=$1 out=$2
  python3 - "$PWD/../shared/data/symptom_disease/dataset.csv" "$per_disease" "$out" <<'PY'
import csv, collections, json, random, sys
path, per, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = set()
with open(path) as f:
    for row in csv.reader(f):
        if not row or not row[0].strip():
            continue
        disease = " ".join(row[0].split())
        symptoms = tuple(sorted(s.strip().replace("_", " ").replace("  ", " ") for s in row[1:] if s.strip()))
        rows.add((disease, symptoms))
by = collections.defaultdict(list)
for d, s in sorted(rows):
    by[d].append(s)
rng = random.Random(1)
with open(f"{out}/tasks.jsonl", "w") as t:
    for d in sorted(by):
        for i, s in enumerate(rng.sample(by[d], min(per, len(by[d])))):
            t.write(json.dumps({"id": f"{d[:24]}-{i}", "answer_type": "label", "answer": d,
                                "question": "A patient reports: " + ", ".join(rng.sample(s, len(s))) +
                                            ". What is the most likely diagnosis?"}) + "\n")
with open(f"{out}/labels.yaml", "w") as l:
    l.write("labels:\n" + "".join(f"  - {json.dumps(d)}\n" for d in sorted(by)))
with open(f"{out}/evidence.jsonl", "w") as e:
    for i, d in enumerate(sorted(by)):
        count = collections.Counter(x for s in by[d] for x in s)
        e.write(json.dumps({"id": f"kb{i + 1}", "title": d,
                            "text": f"{d} presents with " + ", ".join(x for x, _ in count.most_common()) + "."}) + "\n")
PY
  printf 'dataset: {path: %s/tasks.jsonl, labels: %s/labels.yaml, evidence: %s/evidence.jsonl}\n' "$out" "$out" "$out"
}

# Per protocol: n, accuracy and the named summary metrics ("ece" is the summary's own field).
maci_table() {
  python3 - "$1/summary.json" "${@:2}" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
metrics = sys.argv[2:]
print(f"{'protocol':<22} {'n':>5} {'Acc@1':>6} " + " ".join(f"{m:>15}" for m in metrics) + "   (SIMULATED)")
for p in summary["protocols"]:
    cells = []
    for m in metrics:
        if m == "ece":
            v = p.get("ece")
        elif m == "tokens":
            v = p["tokens_mean"]
        else:
            v = p["metrics"].get(m)
        cells.append(f"{v:15.3f}" if isinstance(v, (int, float)) else f"{'-':>15}")
    print(f"{p['name']:<22} {p['n']:5d} {p['accuracy']:6.3f} " + " ".join(cells))
PY
}
