#!/usr/bin/env python3
"""check_json: run nicsim and assert on its --json report (tests/nicsim).

  check_json.py [--moves-nothing] REPORT [EXPR...]
  check_json.py [--moves-nothing] --run NICSIM REPORT [EXPR...] -- NICSIM-ARGS...
                                                 (runs nicsim first; its exit status must be 0)

Always checks that every key issue 7 requires is present and that the run verified bytes with no
mismatch (--moves-nothing: instead that it moved and verified none, with no mismatch: the
application patterns on one node, where every share stays local); then each EXPR (a Python expression over `d`, the report, and the helpers `tot(path)`
= the sum of a per-node key such as "transport.nacks", and `n`, the node list) must be true.
Exit 0 when all hold; 1 with the first failing check otherwise.
"""
import json
import subprocess
import sys

REQUIRED = ["sim.cycles", "sim.wall_s", "sim.cycles_per_s", "workload.ops", "workload.bytes",
            "workload.latency_ns.p50", "workload.latency_ns.p99", "workload.bandwidth_MBps",
            "verify.bytes_checked", "verify.mismatches", "miss_penalty_ns.delay_p50",
            "miss_penalty_ns.processing_p50"]
PER_NODE = ["lookup.vmh.hits", "lookup.vmh.misses", "lookup.vmh.cold_misses", "lookup.cbh.hits",
            "lookup.cbh.misses", "lookup.cbh.cold_misses", "lookup.pch.hits", "lookup.pch.misses",
            "lookup.pch.cold_misses", "transport.retransmits", "transport.nacks", "transport.drops_miss",
            "nic_mem.code", "nic_mem.buffers", "nic_mem.lookup", "nic_mem.other"]


def get(obj, path):
    for k in path.split("."):
        obj = obj[k]
    return obj


def main():
    args = sys.argv[1:]
    nothing = bool(args) and args[0] == "--moves-nothing"
    if nothing:
        args = args[1:]
    if args and args[0] == "--run":
        if "--" not in args or len(args) < 3:
            print("usage: check_json.py --run NICSIM REPORT [EXPR...] -- ARGS...", file=sys.stderr)
            return 1
        cut = args.index("--")
        nicsim, rest, nargs = args[1], args[2:cut], args[cut + 1:]
        cmd = [nicsim, "--no-progress", "--json", rest[0]] + nargs
        print("check_json: $ " + " ".join(cmd), flush=True)
        rc = subprocess.run(cmd).returncode
        if rc:
            print("check_json: nicsim exited with %d" % rc)
            return 1
        args = rest
    if not args:
        print("usage: check_json.py REPORT [EXPR...]", file=sys.stderr)
        return 1
    with open(args[0]) as f:
        d = json.load(f)
    try:
        for k in REQUIRED:
            get(d, k)
        for node in d["nodes"]:
            for k in PER_NODE:
                get(node, k)
    except KeyError as e:
        print("check_json: missing key %s" % e)
        return 1
    n = d["nodes"]

    def tot(path):
        return sum(get(x, path) for x in n)

    moved = (['d["verify"]["bytes_checked"] == 0', 'd["workload"]["bytes"] == 0', 'd["workload"]["ops"] == 0']
             if nothing else ['d["verify"]["bytes_checked"] > 0'])
    checks = ['d["result"] == "PASS"', 'd["verify"]["mismatches"] == 0'] + moved + args[1:]
    for c in checks:
        if not eval(c, {"d": d, "n": n, "tot": tot}):
            print("check_json: failed: %s" % c)
            return 1
        print("check_json: ok: %s" % c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
