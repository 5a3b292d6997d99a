#!/bin/sh
# bench_core.sh CORESIM BENCH_ELF - CPI and simulation speed of rv_core on the
# firmware-like benchmark, at 0 and 1 wait states.
set -e
coresim=$1
elf=$2
for ws in 0 1; do
  echo "== wait states $ws"
  "$coresim" --wait-states "$ws" "$elf" 2>&1 | sed 's/^coresim: /  /'
done
