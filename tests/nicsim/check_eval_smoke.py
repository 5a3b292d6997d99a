#!/usr/bin/env python3
"""nicsim.eval_smoke: runs `scripts/eval --smoke` and checks what it produced beyond its exit
status: the line-rate point (issue 12) is in the JSON, the table (CSV and results.md row) and the
plot data with the same figures, and its limit is Ethernet's; then splice_linkrate (how
`scripts/eval --only linkrate --docs` updates docs/results.md in place) on two small documents.

usage: check_eval_smoke.py SCRIPTS_EVAL OUT_DIR
"""
import csv
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what)


def main():
    ev, out = sys.argv[1], sys.argv[2]
    p = subprocess.run([sys.executable, ev, "--smoke", "--no-build", "-j", "2", "--out", out])
    check(p.returncode == 0, "scripts/eval --smoke exits 0 (got %d)" % p.returncode)

    # the run itself
    with open(os.path.join(out, "runs", "rate-write-10.json")) as f:
        d = json.load(f)
    w = d["workload"]
    check(d["result"] == "PASS", "rate-write-10 passed")
    check(d["config"]["link_gbps"] == 10 and d["config"]["size_max"] == 65536 and d["config"]["window"] == 8
          and d["config"]["op"] == "write" and not d["config"]["bidir"], "rate-write-10 ran the asked stream")
    bw, lim = w["bandwidth_MBps"], w["limit_MBps"]
    retx = sum(n["transport"]["retransmits"] for n in d["nodes"])
    # 16 frames of 4096 B + 48 header + 4 FCS + 20 preamble/IFG at 1250 MB/s
    check(lim is not None and abs(lim - 65536.0 / (65536 + 16 * 72) * 1250) < 0.01, "limit is Ethernet's: %r" % lim)
    check(lim is not None and 0 < bw <= lim, "0 < bandwidth %r <= limit %r" % (bw, lim))

    # the table: CSV row with the JSON's figures
    with open(os.path.join(out, "tables", "linkrate.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["run"] == "rate-write-10"]
    check(len(rows) == 1, "one linkrate.csv row for rate-write-10")
    if rows:
        r = rows[0]
        check(float(r["link_gbps"]) == 10 and abs(float(r["bandwidth_MBps_per_direction"]) - bw) < 0.01
              and abs(float(r["limit_MBps_per_direction"]) - lim) < 0.01
              and abs(float(r["pct_of_limit"]) - 100.0 * bw / lim) < 0.01 and int(r["retransmits"]) == retx,
              "linkrate.csv row matches the JSON: %r" % r)

    # the table in results.md
    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    row = "| write | 10 | %d | %.1f | %.1f | %.1f | %d |" % (d["config"]["iters"], bw, lim, 100.0 * bw / lim, retx)
    check("## Line rate (issue 12)" in md, "results.md has the line-rate section")
    check(row in md, "results.md has the row " + row)
    check("![line rate](results/linkrate.png)" in md, "results.md shows the line-rate plot")

    # the plot's data and the plot
    with open(os.path.join(out, "plots", "linkrate_write.dat")) as f:
        pts = [[float(x) for x in ln.split()] for ln in f if ln.strip()]
    check(len(pts) == 1 and pts[0][0] == 10 and abs(pts[0][1] - bw) < 0.01 and abs(pts[0][2] - lim) < 0.01,
          "linkrate_write.dat is [10, bw, limit]: %r" % pts)
    png = os.path.join(out, "plots", "linkrate.png")
    check(os.path.exists(png) and os.path.getsize(png) > 1000, "linkrate.png drawn")

    # the seed mechanisms' rows (issue 14): prefetch on asks the host fewer times than off for the
    # same cold 256 KiB writes, and both rows reach results.md with the JSON's miss requests
    reqs = {}
    for pf in (0, 16):
        name = "stream256k-C1K-L8-A2-pf%d-on-miss" % pf
        with open(os.path.join(out, "runs", name + ".json")) as f:
            dm = json.load(f)
        check(dm["result"] == "PASS" and dm["config"]["prefetch"] == pf, name + " passed with --prefetch %d" % pf)
        reqs[pf] = sum(n["transport"]["miss_requests"] for n in dm["nodes"])
        check(("| %s | %s | on-miss | PASS |" % (name, pf or "off")) in md and ("| %d |" % reqs[pf]) in md,
              "results.md has the row of " + name)
    check(reqs[16] * 4 <= reqs[0], "prefetch on: miss requests %d vs %d off (at least 4x fewer)" % (reqs[16], reqs[0]))
    check("## Seed mechanisms: prefetch on a miss, pinning modes (issue 14)" in md, "results.md has the section")

    # splice_linkrate: insert, then replace in place, keeping everything else
    loader = importlib.machinery.SourceFileLoader("scripts_eval", ev)
    spec = importlib.util.spec_from_loader("scripts_eval", loader)
    m = importlib.util.module_from_spec(spec)
    loader.exec_module(m)
    old = ("# Results\n\n## Ping-pong\n\ntext\n\n## Application patterns\n\nA\n\n## Where we fall short\n\nintro\n\n"
           "* Fast path: x\n* Scale: y\n")
    new1 = ("# Results\n\n## Line rate (issue 12)\n\nrow 1\n\n## Application patterns\n\n## Where we fall short\n\n"
            "* Line rate: 60 %\n* Scale: y\n")
    got = m.splice_linkrate(old, new1)
    check(got == ("# Results\n\n## Ping-pong\n\ntext\n\n## Line rate (issue 12)\n\nrow 1\n\n## Application patterns\n\n"
                  "A\n\n## Where we fall short\n\nintro\n\n* Fast path: x\n* Scale: y\n* Line rate: 60 %\n"),
          "splice inserts the section and the bullet:\n" + got)
    new2 = "## Line rate (issue 12)\n\nrow 2\n\n## Where we fall short\n\n* Line rate: 70 %\n"
    got2 = m.splice_linkrate(got, new2)
    check(got2 == got.replace("row 1", "row 2").replace("60 %", "70 %"), "splice replaces in place:\n" + got2)
    got3 = m.splice_linkrate(got, "## Line rate (issue 12)\n\nrow 3\n\n## Where we fall short\n\n")
    check("* Line rate" not in got3 and "row 3" in got3 and "* Scale: y" in got3,
          "a target met drops the old bullet:\n" + got3)

    print("eval_smoke: %s" % ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
