#!/usr/bin/env python3
"""nicsim.eval_full: `scripts/eval --full --no-run` end to end on a fixture, without a simulation (issue 16
item 4): the --full plan (every group, the pressure grid's 36 configurations x 5 patterns + static, the
RTO sweep), then the tables, plots and results.md built from synthetic reports of the whole pressure grid
and the RTO sweep, with every other run missing. Checks what the document and the CSVs carry: all 36
points of every pattern, the miss split, the observations and their verdicts, the seed's figures beside
ours, the RTO sweep's costs, the stamps of the sections; and that the missing runs are listed and the exit
status says so (1).

usage: check_eval_full.py SCRIPTS_EVAL
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

from evalcheck import check, fails, load  # tests/nicsim/evalcheck.py


def report(nodes, vmh, time_ns, steady_ns=0.0, points=None, git="abc1234"):
    node = {"lookup": {"vmh": vmh}, "transport": {"retransmits": 1, "timeouts": 2, "nacks": 3}}
    return {"result": "PASS", "git_describe": git, "tool_version": "0.1.0", "firmware": "0.1",
            "config": {"nodes": nodes, "firmware": "fw", "procs": 4, "ws_pages": 512},
            "workload": {"ops": 10, "bytes": 40960, "time_ns": time_ns, "steady_ns": steady_ns,
                         "latency_ns": {"p50": 1000.0}, "bandwidth_MBps": 1.0, "points": points or []},
            "verify": {"bytes_checked": 40960, "mismatches": 0}, "sim": {"cycles_per_s": 1e6, "cpu_s": 2.0},
            "nodes": [node] * nodes}


def main():
    ev = sys.argv[1]
    m = load(ev)
    plan = m.plan("full")
    pr = [r for r in plan if r.group == "pressure"]
    cfgs = {r.meta["config"] for r in pr}
    check(len(pr) == 5 * 37 and len(cfgs) == 37, "--full: 36 configurations + static x 5 patterns (%d runs, %d "
                                                  "configs)" % (len(pr), len(cfgs)))
    rto = [r for r in plan if r.group == "rto"]
    check(len(rto) == len(m.RTO_SIZES) * (1 + 2 * len(m.RTO_US)), "--full: the RTO sweep (%d runs)" % len(rto))
    check(not [r for r in m.plan("smoke") if r.group == "rto"], "--smoke: no RTO sweep (its variants are on request)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        os.makedirs(os.path.join(out, "runs"))
        # the pressure grid: misses fall with L (strongest), with C more at large L, with A mostly at small C;
        # time grows with the misses and with A's lookup cost
        for r in pr:
            if r.meta["cla"] == "static":
                vmh = dict(lookups=1000, misses=0, cold_send=0, cold_recv=0, noncold_send=0, noncold_recv=0)
                t = 1000.0
            else:
                c, l, a = r.meta["cla"]
                miss = int(400 / (l ** 0.5) * (1.0 - 0.1 * (c // 1024) * (l / 128.0)) * (1.0 + 0.5 * (2.0 / a) *
                                                                                             (1024.0 / c)))
                vmh = dict(lookups=10000, misses=miss, cold_send=miss // 4, cold_recv=miss // 4,
                           noncold_send=miss // 4, noncold_recv=miss - 3 * (miss // 4))
                t = 1000.0 + miss + 5.0 * a
            with open(os.path.join(out, "runs", r.name + ".json"), "w") as f:
                json.dump(report(2, vmh, 2 * t, t), f)
        # the RTO sweep: base 10 us per KiB one-way; NACK +70 us one-way at any RTO; timeout mode + RTO + 70
        for r in rto:
            lat = 10.0 * r.meta["size"] / 1024
            if r.meta["kind"] == "nack":
                lat += 70.0
            elif r.meta["kind"] == "timeout":
                lat += 70.0 + r.meta["rto"]
            pt = [{"latency_ns": {"mean": lat * 1e3}, "bandwidth_MBps": 1.0, "ops": 10}]
            with open(os.path.join(out, "runs", r.name + ".json"), "w") as f:
                json.dump(report(2, dict(lookups=10, misses=10), 1e6, points=pt), f)
        env = dict(os.environ, BUILD_DIR=os.path.join(tmp, "no-build"))
        p = subprocess.run([sys.executable, ev, "--full", "--no-run", "--no-docs", "--out", out], env=env,
                           capture_output=True, text=True)
        check(p.returncode == 1, "exit status 1 (runs missing), got %d: %s" % (p.returncode, p.stderr[-2000:]))
        n_ok = len(pr) + len(rto)
        check("%d/%d runs passed" % (n_ok, len(plan)) in p.stdout, "the summary counts the fixture's runs: " +
              p.stdout[-400:])
        try:
            md = open(os.path.join(out, "results.md")).read()
        except OSError:
            md = ""
        check("**Failed or missing runs**" in md and "pingpong" in md.split("**Failed or missing runs**")[1][:20000],
              "results.md lists the missing runs")
        sec = md.split(m.PRESSURE_HEADING)[1].split("\n## ")[0] if m.PRESSURE_HEADING in md else ""
        check("36 of the 36 configurations were run" in sec, "the pressure section says all 36 were run")
        rows = [ln for ln in sec.split("\n") if ln.startswith("| ") and ln.split(" | ")[0][2:] in m.PATTERNS
                and (ln.split(" | ")[1] == "static" or ln.split(" | ")[1].startswith("C"))]
        for p_ in m.PATTERNS:
            n = sum(1 for ln in rows if ln.startswith("| %s | " % p_))
            check(n == 37, "%s: 37 table rows (36 + static), got %d" % (p_, n))
        check("| fft | C1K-L8-A2 |" in sec and "| water | C4K-L128-A8 |" in sec, "the grid's corners are in the table")
        check("**line size is the strongest parameter**: reproduced" in sec, "observation 1 on the fixture: reproduced")
        check("| fft | FFT 0-40 % |" in sec, "the seed's Fig. 5 axis beside ours")
        check("of the 36 Table III points in this evaluation" not in md, "no 'N of the 36' shortfall bullet")
        with open(os.path.join(out, "tables", "pressure.csv")) as f:
            pc = list(csv.DictReader(f))
        check(len(pc) == len(pr), "pressure.csv: one row per run (%d)" % len(pc))
        x = next((r for r in pc if r["pattern"] == "lu" and r["config"] == "C2K-L16-A4"), None)
        check(x is not None and abs(float(x["miss"]) - 100.0 * float(x["misses"]) / float(x["lookups"])) < 1e-6,
              "pressure.csv: miss % = misses / lookups")
        with open(os.path.join(out, "tables", "runs.csv")) as f:
            check(sum(1 for _ in f) == len(plan) + 1, "runs.csv: one row per planned run")
        rsec = md.split(m.RTO_HEADING)[1].split("\n## ")[0] if m.RTO_HEADING in md else ""
        check("| 4 KiB | 40.0 | 140.0 |" in rsec, "RTO table: the 4 KiB base and the NACK mode's 140 us per miss (twice "
                                                 "the added one-way latency: one miss per round trip)")
        check("| 540.0 |" in rsec, "RTO table: the timeout mode at 200 us (540 us)")
        check("| 4 KiB | 0.1 / 0.1 / 0.0 |" in rsec, "RTO table of the timeout mode: timeouts / NACKs / retransmits "
                                                     "per round trip with a miss")
        check("does not depend on the RTO (within 5 %)**: yes" in rsec, "RTO finding: NACK independent of the RTO")
        check("grows with the RTO from 200 us up**: yes" in rsec, "RTO finding: the timeout mode grows with the RTO")
        check(m.STAMPS_LEAD in md and "Caches under pressure: Table III grid (issue 16): abc1234" in md,
              "the stamp index names the sections' commits")
        for png in ("pr_fig5_missrate.png", "pr_fig6_time.png", "pr_fig7_best.png", "rto_sweep.png"):
            check(os.path.getsize(os.path.join(out, "plots", png)) > 1000 if os.path.exists(
                os.path.join(out, "plots", png)) else False, "plot %s drawn" % png)
        # idempotent stamps: rebuilding the index keeps one
        check(m.with_stamps(m.with_stamps(md)).count(m.STAMPS_LEAD) == 1, "with_stamps keeps one index")
        # the wall time: --no-run states none of its own (no wall.json from a whole run here) ...
        check("Evaluation wall time: not known (`--no-run`" in md, "--no-run without wall.json: the wall time unknown")
        check("`%s/runs/`" % out in md, "the reports' directory outside the repository named by its absolute path")
        # ... and the whole run's, kept in OUT/wall.json, when the reports came with one (of the same mode)
        n_rep = len(pr) + len(rto)
        check("The runs' simulation CPU time: %.0f s in all (%d reports;" % (2.0 * n_rep, n_rep) in md,
              "the runs' CPU time summed from their reports")
        for mode_, said in (("full", "Evaluation wall time: 2345 s on this machine (the whole evaluation --full, "
                                     "measured at commit abc1234); the machine's load meanwhile: 3.5 on average"),
                            ("default", "Evaluation wall time: not known")):
            with open(os.path.join(out, "wall.json"), "w") as f:
                json.dump({"wall_s": 2345.2, "runs": len(plan), "mode": mode_, "load_mean": 3.5}, f)
            subprocess.run([sys.executable, ev, "--full", "--no-run", "--no-docs", "--out", out], env=env,
                           capture_output=True, text=True)
            with open(os.path.join(out, "results.md")) as f:
                check(said in f.read(), "--no-run with a %s run's wall.json: %r" % (mode_, said))
    print("eval_full: " + ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
