#!/usr/bin/python3
"""Prints the figures table of docs/performance.md from bench/run.sh's procbench lines.

  table.py LINES.jsonl --runs N --commit C --machine M

LINES.jsonl holds procbench's output: one JSON object per run, then its median ("median_of").
"""
import argparse
import collections
import datetime
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines")
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--machine", required=True)
    args = parser.parse_args()

    runs = collections.defaultdict(list)
    median = {}
    with open(args.lines, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if "median_of" in record:
                median[record["label"]] = record
            else:
                runs[record["label"]].append(record)
    missing = {"simulated-one-core", "http-cpu-per-call", "python-asyncio-cpu-per-call", "wrk-cpu-per-request",
               "rss-10k-in-flight"} - median.keys()
    if missing:
        sys.exit(f"table.py: no median for {', '.join(sorted(missing))}")

    def spread(label, field, fmt):
        values = [r[field] for r in runs[label]]
        return f"{fmt(min(values))}–{fmt(max(values))}"

    def count(x):
        return f"{x:,.0f}"

    def micro(x):
        return f"{x:.1f}" if x < 100 else f"{x:.0f}"

    sim, http = median["simulated-one-core"], median["http-cpu-per-call"]
    python, wrk, rss = median["python-asyncio-cpu-per-call"], median["wrk-cpu-per-request"], median["rss-10k-in-flight"]
    print(f"Measured {datetime.date.today()} with `bench/run.sh {args.runs}` (Release, g++ -O3) at commit "
          f"{args.commit} on {args.machine}. Medians of {args.runs} runs; ranges over the runs.\n")
    print("| benchmark | parley | range | reference, same run |")
    print("|---|---|---|---|")
    print(f"| simulated LLM calls per second, one core ({count(sim['calls'])} calls) | "
          f"**{count(sim['calls_per_s'])} calls/s** wall; {micro(sim['cpu_us_per_call'])} µs of CPU per call | "
          f"{spread('simulated-one-core', 'calls_per_s', count)} calls/s | — |")
    print(f"| engine CPU per LLM call over loopback HTTP ({count(http['calls'])} calls, 256 in flight) | "
          f"**{micro(http['cpu_us_per_call'])} µs** user+sys per call "
          f"({http['cpu_us_per_call'] / wrk['cpu_us_per_call']:.1f} × wrk) | "
          f"{spread('http-cpu-per-call', 'cpu_us_per_call', micro)} µs | "
          f"wrk {micro(wrk['cpu_us_per_call'])} µs per request ({spread('wrk-cpu-per-request', 'cpu_us_per_call', micro)}); "
          f"Python asyncio + aiohttp orchestrator {micro(python['cpu_us_per_call'])} µs per call "
          f"({spread('python-asyncio-cpu-per-call', 'cpu_us_per_call', micro)}) |")
    print(f"| peak RSS with 10,000 debates in flight ({count(rss['calls'])} calls) | **{rss['max_rss_mib']:.0f} MiB** | "
          f"{spread('rss-10k-in-flight', 'max_rss_mib', count)} MiB | — |")


if __name__ == "__main__":
    main()
