#!/usr/bin/env python3
"""nicsim.eval_smoke: runs `scripts/eval --smoke` and checks what it produced beyond its exit
status: the line-rate point (issue 12) is in the JSON, the table (CSV and results.md row) and the
plot data with the same figures, and its limit is Ethernet's; the latency breakdown's table and
section carry its run's figures; then splice_linkrate (how
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

    # selective repeat (issue 14): both transports at 1 % drop, in sr.csv and results.md with the JSON's figures
    with open(os.path.join(out, "tables", "sr.csv")) as f:
        srr = {r["run"]: r for r in csv.DictReader(f)}
    for name, on in (("sr-off-drop0.01", False), ("sr-on-drop0.01", True)):
        with open(os.path.join(out, "runs", name + ".json")) as f:
            ds = json.load(f)
        rx = sum(n["transport"]["retransmits"] for n in ds["nodes"])
        check(ds["result"] == "PASS" and ds["config"]["sr"] == on and ds["config"]["drop"] == 0.01,
              "%s ran with --sr %s --drop 0.01" % (name, "on" if on else "off"))
        r = srr.get(name)
        check(r is not None and int(r["retransmits"]) == rx and r["sr"] == str(on)
              and abs(float(r["bandwidth_MBps"]) - ds["workload"]["bandwidth_MBps"]) < 0.01,
              "sr.csv row matches the JSON: %r" % r)
        row = "| %s | 1 %% | %.1f | - | %d | %d |" % ("selective repeat" if on else "go-back-N",
                                                   ds["workload"]["bandwidth_MBps"], ds["switch"]["fault_drop"], rx)
        check(row in md, "results.md has the row " + row)
    check("## Selective repeat (issue 14)" in md, "results.md has the selective-repeat section")

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

    # caches under pressure (issue 16): the tiny grid's dynamic run reaches pressure.csv and results.md
    # with its JSON's lookups and misses, and every byte was verified
    with open(os.path.join(out, "runs", "pr-water-C1K-L8-A2.json")) as f:
        dp = json.load(f)
    lk = sum(n["lookup"]["vmh"]["lookups"] for n in dp["nodes"])
    ms = sum(n["lookup"]["vmh"]["misses"] for n in dp["nodes"])
    check(dp["result"] == "PASS" and dp["config"]["procs"] == 2 and dp["verify"]["mismatches"] == 0
          and dp["verify"]["bytes_checked"] > 0 and lk > 0 and ms > 0, "pr-water-C1K-L8-A2 passed, verified, missed")
    check(dp.get("tool_version") and dp.get("firmware"), "the report carries tool and firmware versions")
    with open(os.path.join(out, "tables", "pressure.csv")) as f:
        prr = {r["config"]: r for r in csv.DictReader(f) if r["pattern"] == "water"}
    r = prr.get("C1K-L8-A2")
    check(r is not None and int(r["lookups"]) == lk and int(r["misses"]) == ms and "static" in prr,
          "pressure.csv rows match the JSON: %r" % r)
    check("## Caches under pressure: Table III grid (issue 16)" in md and "| water | C1K-L8-A2 |" in md,
          "results.md has the pressure section and its row")

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

    # the latency breakdown (issue 12 "Reporting"): the run, its CSV table and results.md section
    # carry the JSON's steps for 8 B and 4 KiB; splice with the breakdown's heading and no bullets
    with open(os.path.join(out, "runs", "breakdown.json")) as f:
        db = json.load(f)
    check(db["result"] == "PASS" and "breakdown" in db, "the breakdown run passed with a breakdown object")
    sizes = {s["size"]: s for s in db.get("breakdown", {}).get("sizes", [])}
    check(8 in sizes and 4096 in sizes, "breakdown has 8 B and 4 KiB: %r" % sorted(sizes))
    with open(os.path.join(out, "tables", "breakdown.csv")) as f:
        brows = {r["step"]: r for r in csv.DictReader(f)}
    if 8 in sizes and 4096 in sizes:
        for st8, st4 in zip(sizes[8]["steps"], sizes[4096]["steps"]):
            r = brows.get(st8["step"])
            want = ["" if x is None else str(x) for x in (st8["cycles"], st4["cycles"])]
            check(r is not None and [r["cycles_8B"], r["cycles_4096B"]] == want,
                  "breakdown.csv row %s = JSON %r: %r" % (st8["step"], want, r))
        pl = [s for s in sizes[8]["steps"] if s["step"] == "placement"][0]
        pl4 = [s for s in sizes[4096]["steps"] if s["step"] == "placement"][0]
        check("| placement | both | %d (%.0f) | %d (%.0f) |" % (pl["cycles"], pl["ns"], pl4["cycles"], pl4["ns"]) in md,
              "results.md has the breakdown's placement row")
    check("## Latency breakdown (issue 12)" in md, "results.md has the breakdown section")
    bnew = "## Latency breakdown (issue 12)\n\nsteps 2\n\n## Where we fall short\n\n"
    bold = got.replace("## Application patterns", "## Latency breakdown (issue 12)\n\nsteps 1\n\n## Application patterns")
    got4 = m.splice_linkrate(bold, bnew, "## Latency breakdown (issue 12)", None)
    check(got4 == bold.replace("steps 1", "steps 2"), "splice replaces the breakdown in place, bullets kept:\n" + got4)

    print("eval_smoke: %s" % ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
