# Sourced by the UDPO benchmarks (udpo-diagnosis.sh, and the training tables): the shared setup of
# simulated-experiment.sh, the paper's three datasets from ../shared/data converted on the fly,
# and the head of an experiment with the paper's N = 5 debaters. SIMULATED numbers throughout.
source "$(dirname "${BASH_SOURCE[0]}")/simulated-experiment.sh"

# `udpo_dataset NAME LIMIT OUT_DIR` writes OUT_DIR/NAME.jsonl and prints its path.
#   csqa        CommonsenseQA dev (1,221 five-way questions; the test labels are hidden)
#   truthfulqa  TruthfulQA MC1 (817 questions; options shuffled with a fixed seed, since the true
#               answer is listed first in mc_task.json)
#   gsm8k       GSM8K test (1,319 problems, kept in GSM8K's own format; numeric answers)
# LIMIT keeps the first LIMIT questions (0: all).
udpo_dataset() {
  local name=$1 limit=$2 out=$3
  python3 - "$PWD/../shared/data" "$name" "$limit" "$out/$name.jsonl" <<'PY'
import json, random, sys
data, name, limit, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = []
if name == "csqa":
    for line in open(f"{data}/commonsenseqa/dev_rand_split.jsonl"):
        r = json.loads(line)
        rows.append(json.dumps({"id": r["id"], "question": r["question"], "options": r["choices"]["text"],
                                "answer": r["answerKey"], "answer_type": "choice"}))
elif name == "truthfulqa":
    rng = random.Random(1)
    for i, r in enumerate(json.load(open(f"{data}/truthfulqa/mc_task.json"))):
        options = list(r["mc1_targets"].items())
        rng.shuffle(options)
        gold = next(k for k, (_, v) in enumerate(options) if v == 1)
        rows.append(json.dumps({"id": f"tqa-{i}", "question": r["question"], "options": [o for o, _ in options],
                                "answer": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[gold], "answer_type": "choice"}))
elif name == "gsm8k":
    rows = [line.rstrip("\n") for line in open(f"{data}/gsm8k/test.jsonl")]
else:
    sys.exit(f"unknown dataset {name}")
with open(out, "w") as f:
    for r in rows[:limit or None]:
        f.write(r + "\n")
PY
  echo "$out/$name.jsonl"
}

# `udpo_split FILE` writes FILE's odd lines to FILE.train and its even lines to FILE.test (the
# paper gives no splits, U-17: training and evaluation questions are kept apart).
udpo_split() {
  awk -v train="$1.train" -v test="$1.test" 'NR % 2 { print > train; next } { print > test }' "$1"
}

# The experiment's head: five `default` debaters at temperature 0.7 (the paper's N = 5; its five
# model families are one simulated profile here), then the given `dataset:` line.
udpo_head() {
  cat <<YAML
models:
  - {name: sim, backend: simulator, profile: default}
agents:
$(for i in 1 2 3 4 5; do echo "  - {name: a$i, model: sim, temperature: 0.7}"; done)
$1
protocols:
YAML
}
