#!/bin/sh
# cli_test.sh NICSIM: bad options are rejected with exit 3 and a message naming the option;
# --help documents every workload; a missing firmware variant says how to build it.
set -u
N=$1
fails=0
expect() { # want-exit want-text args...
    want=$1 text=$2
    shift 2
    out=$("$N" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$want" ] || ! printf '%s' "$out" | grep -q -- "$text"; then
        echo "FAIL: nicsim $*: exit $rc (want $want), output: $out"
        fails=$((fails + 1))
    else
        echo "ok: nicsim $* -> $rc"
    fi
}
expect 3 "--nodes" --nodes 0
# one node: the application patterns only (tests/nicsim nicsim.one_node_*); the others run between nodes
for w in pingpong stream missratio incast reglimit; do
    expect 3 "workload $w needs --nodes 2\.\..*one node runs only fft, radix, lu, ocean and water" --workload "$w" --nodes 1
done
expect 3 "--nodes" --nodes 99
expect 3 "--workload" --workload nosuch
expect 3 "--drop" --drop 1.5
expect 3 "--cache" --cache 1000,64,4
expect 3 "--cache" --cache 64,64,4
expect 3 "--nack" --nack maybe
expect 3 "--ws-pages" --ws-pages 3
expect 3 "--prefetch" --prefetch 65
expect 3 "--prefetch" --prefetch -1
expect 3 "--pin-mode" --pin-mode sometimes
expect 0 "--pin-mode" --help
expect 0 "--prefetch" --help
expect 3 "--cq-mod" --cq-mod 0
expect 3 "--cq-mod 9 must be at most --window 8" --workload stream --nodes 2 --window 8 --cq-mod 9
expect 3 "--cq-mod is the stream workload's" --workload pingpong --nodes 2 --cq-mod 2
expect 0 "--cq-mod" --help
expect 3 "bad value .maybe. for --pause: on or off" --pause maybe
expect 0 "--pause on|off" --help
expect 3 "bad value .maybe. for --cut-through: on or off" --cut-through maybe
expect 0 "--cut-through on|off" --help
expect 3 "bad value .0. for --pcie-read-latency: cycles 1..100000" --pcie-read-latency 0
expect 3 "bad value .100001. for --pcie-read-latency" --pcie-read-latency 100001
expect 3 "bad value .x. for --pcie-read-latency" --pcie-read-latency x
expect 0 "--pcie-read-latency CYC" --help
expect 3 "unknown option" --frobnicate
expect 3 "unexpected argument" extra
expect 3 "multiple of --nodes" --workload fft --nodes 3 --ws-pages 256
expect 3 "fwvar-c2048-l8-a8" --cache 2048,8,8
expect 3 "static" --lookup static --cache 16384,64,4
expect 3 "not found" --fw /nonexistent.img
expect 3 "multiple of --nodes x --procs" --workload fft --nodes 2 --procs 3 --ws-pages 256
expect 3 "--mem-pressure" --mem-pressure 5
expect 3 "--procs" --procs 0
expect 3 "--procs" --procs 65
expect 3 "at most 15 user endpoints" --procs 16 --nodes 2 --workload stream --iters 1 --quiet
expect 0 "reglimit" --help
for w in pingpong stream missratio fft radix lu ocean water reglimit; do
    expect 0 "$w" --help
done
[ "$fails" -eq 0 ] && echo "cli_test: PASS" || echo "cli_test: $fails FAILED"
[ "$fails" -eq 0 ]
