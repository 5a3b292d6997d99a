#!/usr/bin/env bash
# run_fuzz.sh FUZZER SEED_CORPUS SECONDS ARTIFACT_DIR WORK_DIR
# Runs a libFuzzer target for SECONDS, seeded from SEED_CORPUS (read only: the committed corpus
# is never written), new inputs going to WORK_DIR (kept between runs). Exit 0 when no input
# crashed, failed an invariant, leaked or timed out; otherwise non-zero, with the reproducer in
# ARTIFACT_DIR (crash-*, leak-*, timeout-*, oom-*), and the command that replays it printed.
set -uo pipefail
if [ $# -ne 5 ]; then
  echo "usage: $0 FUZZER SEED_CORPUS SECONDS ARTIFACT_DIR WORK_DIR" >&2
  exit 2
fi
fuzzer=$1 seeds=$2 secs=$3 art=$4 work=$5
name=$(basename "$fuzzer")
[ -x "$fuzzer" ] || { echo "$name: fuzzer $fuzzer not built" >&2; exit 2; }
[ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ] || { echo "$name: no seed corpus in $seeds" >&2; exit 2; }
mkdir -p "$art" "$work"
rm -f "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*
log="$art/$name.log"
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$art/" "$work" "$seeds" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
repro=$(ls "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-* 2>/dev/null | head -1)
if [ $rc -ne 0 ] || [ -n "$repro" ]; then
  grep -E 'invariant failed|NCP_ASSERT|ERROR: |SUMMARY|runtime error' "$log" | head -20 >&2
  echo "$name: FAILED (exit $rc) after ${runs:-?} runs; reproducer: ${repro:-none}; log: $log" >&2
  [ -n "$repro" ] && echo "$name: replay with: $fuzzer $repro" >&2
  exit 1
fi
if [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
  echo "$name: FAILED: the fuzzer executed no input (log: $log)" >&2
  exit 1
fi
echo "$name: ${runs} inputs in ${secs} s, ${cov:-cov: ?} edges, corpus $(ls "$work" | wc -l) + $(ls "$seeds" | wc -l) seeds, no crash"
