#!/usr/bin/env bash
# SVR-MAD Table 1 and App. B on the simulator: examples/svr-mad.yaml (self-consistency, debate,
# GroupDebate, SID-ET, S2-MAD in both variants, SVR-MAD with two priors) plus the App. B posterior
# ablation and SID-ET tuned by Algorithm 2, on parley's arithmetic sample. Prints NComm, tokens and
# accuracy per question over all units and over the units whose pre-debate answers were not
# unanimous (the paper's evaluation set, §5). SIMULATED numbers.
# Usage: bench/svr-mad-comparison.sh [SEEDS]   (default 5: seeds 1..5)
source "$(dirname "$0")/simulated-experiment.sh"
SEEDS=${1:-5}
seeds="[$(seq -s, 1 "$SEEDS")]"

# The example's protocols, then the ablation (App. B) and SID-ET debating every unit (for tuning).
sed '/^seeds:/d' examples/svr-mad.yaml >"$WORK/exp.yaml"
cat >>"$WORK/exp.yaml" <<YAML
  - {name: svr_mad, label: svr_mad_post_min_ll, posterior: min_ll}
  - {name: svr_mad, label: svr_mad_post_ppl, posterior: ppl}
  - {name: svr_mad, label: svr_mad_post_conf, posterior: confidence}
  - {name: sid_et, label: sid_et_always, threshold: 0}
seeds: $seeds
YAML
sed -i "s|path: examples/|path: $PWD/examples/|" "$WORK/exp.yaml"
start=$(date +%s.%N)
"$PARLEY" run "$WORK/exp.yaml" --out "$WORK/run" --quiet
echo "# run: $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)") s" >&2
"$PARLEY" tune-sid-et "$WORK/run" --protocol sid_et_always --reference svr_mad >"$WORK/tune.txt"
cat "$WORK/tune.txt" >&2
threshold=$(sed -n 's/.*threshold[^-0-9]*\(-\?[0-9.e+-]*\).*/\1/p' "$WORK/tune.txt" | tail -1)

# SID-ET at the tuned threshold (tuned on these same units, as Algorithm 2 is run in App. A).
cat >"$WORK/tuned.yaml" <<YAML
$(sed -n '1,/^protocols:/p' "$WORK/exp.yaml")
  - {name: sid_et, label: sid_et_tuned, threshold: $threshold}
seeds: $seeds
YAML
"$PARLEY" run "$WORK/tuned.yaml" --out "$WORK/tuned" --quiet
# The difficulty breakdown of Fig. 1-2 (svr_mad's pre-debate answers), as parley run prints it.
"$PARLEY" report "$WORK/run" | sed -n '/^by difficulty/,$p'

python3 - "$WORK/run/transcripts.jsonl" "$WORK/tuned/transcripts.jsonl" <<'PY'
import json, sys, collections
rows = collections.defaultdict(list)
unanimous = set()
for path in sys.argv[1:]:
    for line in open(path):
        t = json.loads(line)
        rows[t["protocol"]].append(t)
        if t["protocol"] == "svr_mad":
            for e in t["events"]:
                if e["kind"] == "stop" and json.loads(e["detail"]).get("reason") == "unanimous":
                    unanimous.add((t["task_id"], t["seed"]))
def line(name, ts):
    n = len(ts)
    acc = sum(t["correct"] for t in ts) / n
    tok = sum(t["prompt_tokens"] + t["completion_tokens"] for t in ts) / n
    ncomm = sum(t["metrics"].get("ncomm", 0) for t in ts) / n
    return f"{ncomm:6.1f} {tok:8.0f} {acc:6.3f} {n:5d}"
# The claims docs/protocols.md makes besides the table: every protocol's round-0 reply of an
# agent is the same text; S2-MAD's embedding variant's cosines and embedding tokens.
def round_zero(t):  # agent -> (text, answer) of its last round-0 call (a re-ask replaces the reply)
    replies = {}
    for m in t["messages"]:
        if m["round"] == 0 and m["role"] in ("answer", "reask"):
            replies[m["agent"]] = (m["text"], m.get("answer"))
    return replies
texts = collections.defaultdict(set)
for name, ts in rows.items():
    if name == "sid_et_tuned":
        continue
    for t in ts:
        for agent, (text, _) in round_zero(t).items():
            texts[(t["task_id"], t["seed"], agent)].add(text)
differing = sum(len(v) > 1 for v in texts.values())
print(f"round-0 replies (unit, agent): {len(texts)}, differing between protocols: {differing}")
same, different, tokens, calls = [], [], 0, 0
for t in rows.get("s2_mad_embed", []):
    answers = [answer for _, (_, answer) in sorted(round_zero(t).items())]  # seat order: a1..a6
    tokens += sum(m["prompt_tokens"] for m in t["messages"] if m["role"] == "embedding")
    calls += sum(m["role"] == "embedding" for m in t["messages"])
    for e in t["events"]:
        if e["kind"] == "similarity" and e["round"] == 1:
            cos = json.loads(e["detail"])["cosine"]
            for i in range(len(answers)):
                for j in range(i + 1, len(answers)):
                    if answers[i] is not None and answers[j] is not None:
                        (same if answers[i] == answers[j] else different).append(cos[i][j])
if same:
    import statistics
    print(f"s2_mad_embed before round 1: median cosine {statistics.median(same):.2f} for same-answer pairs "
          f"({sum(c < 0.9 for c in same) / len(same):.0%} below 0.9), {statistics.median(different):.2f} for different; "
          f"{tokens / calls:.0f} embedding tokens per call, {tokens / len(rows['s2_mad_embed']):.0f} per question")
# SVR-MAD's receivers: debates that repeat a (receiver, challenger) pair, and how units end.
debates, repeats, ends = 0, 0, collections.Counter()
for t in rows.get("svr_mad", []):
    pairs = set()
    for e in t["events"]:
        if e["kind"] == "svr":
            d = json.loads(e["detail"])
            debates += 1
            repeats += (d["receiver"], d["challenger"]) in pairs
            pairs.add((d["receiver"], d["challenger"]))
        elif e["kind"] == "stop":
            ends[json.loads(e["detail"])["reason"]] += 1
print(f"svr_mad: {debates} pairwise debates, {repeats} repeating a receiver-challenger pair; units end "
      + ", ".join(f"{reason} {n}" for reason, n in sorted(ends.items())))
print(f"{'protocol':<22} {'all units: NComm':>16} {'tokens':>8} {'acc':>6} {'n':>5} | {'not unanimous: NComm':>20} {'tokens':>8} {'acc':>6} {'n':>5}   (SIMULATED)")
for name, ts in rows.items():
    hard = [t for t in ts if (t["task_id"], t["seed"]) not in unanimous]
    print(f"{name:<22} {line(name, ts):>37} | {line(name, hard):>41}")
PY
