#!/usr/bin/env python3
"""nicsim --events: the JSON-lines event log against the counters the run reported.

  check_events.py NICSIM OUTDIR

Two RDMA-write streams node 0 -> node 1 (one clean, whose first op misses in node 1's VMH cache;
one with 5 % frame drops), each with --events and --json. Checks, per run:
  - every line is a JSON object with cycle, ns (= cycle * 5 at 200 MHz), node, event; cycles
    nondecreasing; only the documented event names
  - per node: "miss" lines = driver.misses, "fill" = driver.fills, "fill_rejected" =
    driver.fills_rejected; "invalidate" lines for each cache the driver set up (pch, cbh, vmh)
  - node 0's "retransmit" lines = its transport.retransmits; node 1's "nack" + "resume" lines =
    its transport.nacks = node 0's nacks_received (>= in the lossy run: a NACK can be dropped
    too); the clean run has a MISS NACK and a RESUME,
    the lossy one GAP NACKs
A path that cannot be created fails before the run (exit 3).
"""
import collections
import json
import os
import subprocess
import sys

EVENTS = {"miss", "fill", "fill_rejected", "invalidate", "nack", "resume", "retransmit", "giveup"}


def run(nicsim, out, name, extra):
    ev = os.path.join(out, name + ".events")
    js = os.path.join(out, name + ".json")
    subprocess.run([nicsim, "--workload", "stream", "--nodes", "2", "--quiet", "--events", ev, "--json", js] + extra,
                   check=True, timeout=300)
    return [json.loads(l) for l in open(ev)], json.load(open(js))


def main():
    nicsim, out = sys.argv[1:3]
    bad = []

    def check(ok, what):
        print(("ok: " if ok else "FAILED: ") + what)
        if not ok:
            bad.append(what)

    q = subprocess.run([nicsim, "--workload", "stream", "--nodes", "2", "--iters", "1", "--events",
                        "/nonexistent-dir/x.events"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(q.returncode == 3 and "--events" in q.stdout, "bad --events path: exit %d (3)" % q.returncode)
    cases = [("events_clean", ["--iters", "3", "--size", "8192"], "clean"),
             ("events_drop", ["--iters", "40", "--size", "16384", "--drop", "0.05", "--seed", "3"], "lossy")]
    for name, extra, kind in cases:
        evs, d = run(nicsim, out, name, extra)
        n = d["nodes"]
        hz = d["sim"]["clock_hz"]
        check(all({"cycle", "ns", "node", "event"} <= set(e) and e["event"] in EVENTS for e in evs),
              "%s: %d lines, each with cycle, ns, node and a known event" % (name, len(evs)))
        check(all(e["ns"] == e["cycle"] * 10**9 // hz for e in evs), "%s: ns = cycle at %d Hz" % (name, hz))
        cyc = [e["cycle"] for e in evs]
        check(cyc == sorted(cyc) and cyc[-1] <= d["sim"]["cycles"], "%s: cycles nondecreasing, within the run" % name)
        c = collections.Counter((e["node"], e["event"]) for e in evs)
        for i in (0, 1):
            for ev, key in (("miss", "misses"), ("fill", "fills"), ("fill_rejected", "fills_rejected")):
                check(c[(i, ev)] == n[i]["driver"][key],
                      "%s: node %d %s lines %d == driver.%s %d" % (name, i, ev, c[(i, ev)], key, n[i]["driver"][key]))
            caches = {e["cache"] for e in evs if e["node"] == i and e["event"] == "invalidate"}
            check(caches == {"pch", "cbh", "vmh"}, "%s: node %d invalidations in %s" % (name, i, sorted(caches)))
        check(c[(0, "retransmit")] == n[0]["transport"]["retransmits"] > 0,
              "%s: node 0 retransmit lines %d == transport.retransmits %d (> 0)"
              % (name, c[(0, "retransmit")], n[0]["transport"]["retransmits"]))
        nk = c[(1, "nack")] + c[(1, "resume")]
        # with drops, a NACK frame itself may be lost on the way to node 0
        rcvd_ok = (n[0]["transport"]["nacks_received"] == n[1]["transport"]["nacks"] if kind == "clean"
                   else 0 < n[0]["transport"]["nacks_received"] <= n[1]["transport"]["nacks"])
        check(nk == n[1]["transport"]["nacks"] and rcvd_ok,
              "%s: node 1 nack+resume lines %d == its nacks %d %s node 0 nacks_received %d"
              % (name, nk, n[1]["transport"]["nacks"], "==" if kind == "clean" else ">=",
                 n[0]["transport"]["nacks_received"]))
        reasons = collections.Counter(e.get("reason") for e in evs if e["event"] == "nack")
        if kind == "clean":
            check(reasons["MISS"] > 0 and c[(1, "resume")] > 0, "%s: MISS NACK and RESUME seen %s" % (name, dict(reasons)))
        else:
            check(reasons["GAP"] > 0, "%s: GAP NACKs after drops %s" % (name, dict(reasons)))
    if bad:
        print("check_events: %d checks failed" % len(bad))
        return 1
    print("check_events: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
