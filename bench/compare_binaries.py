#!/usr/bin/env python3
"""Compares parley binaries on one experiment in one window of the (shared, noisy) host.

Usage: bench/compare_binaries.py RUNS EXPERIMENT.yaml CALLS BINARY...
Runs `BINARY run EXPERIMENT.yaml --out DIR --quiet` pinned to CPU 0, RUNS times for each
binary, interleaved (A B C A B C ...), so that the host's drift affects every binary alike;
prints the median wall time, the median CPU time (user + sys, helper threads included) and
CALLS / median wall time for each. The experiment's dataset path is read relative to its file.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    runs, experiment, calls, binaries = int(sys.argv[1]), os.path.abspath(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
    results = {binary: [] for binary in binaries}
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "out")
        for _ in range(runs):
            for binary in binaries:
                shutil.rmtree(out, ignore_errors=True)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(["taskset", "-c", "0", binary, "run", experiment, "--out", out, "--quiet"],
                               stdout=subprocess.DEVNULL, check=True, cwd=os.path.dirname(experiment))
                wall = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                results[binary].append((wall, cpu))
    for binary, samples in results.items():
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        print(f"{binary}: wall {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms, {calls / wall:,.0f} calls/s")


if __name__ == "__main__":
    main()
