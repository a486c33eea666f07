#!/usr/bin/env bash
# The HTTP floor for bench/run.sh: wrk, one thread and 256 connections, POSTs chat completions to
# the fake server for SECONDS, then writes the request count as a summary procbench reads
# ({"protocols": [{"n": requests, "calls_mean": 1}]}), so wrk's CPU per request is measured like
# parley's CPU per call.   Usage: wrk_requests.sh URL SECONDS SUMMARY
set -euo pipefail
url=$1 seconds=$2 summary=$3
out=$(wrk -t1 -c256 -d"${seconds}s" -s "$(dirname "$0")/wrk_chat.lua" "$url")
requests=$(sed -n 's/^ *\([0-9][0-9]*\) requests in .*/\1/p' <<<"$out")
errors=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<<"$out")
[[ -n $requests && -z $errors ]] || { echo "wrk_requests: unexpected wrk output:" >&2; echo "$out" >&2; exit 1; }
mkdir -p "$(dirname "$summary")"
printf '{"orchestrator":"wrk","protocols":[{"n":%d,"calls_mean":1}]}\n' "$requests" >"$summary"
