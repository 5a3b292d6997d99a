#!/usr/bin/env python3
"""nicsim.eval_pressure_csv: scripts/eval keeps the committed pressure rows (issue 16 item 1) of grid points
that have no run report in OUT/runs (`--pressure-csv`, default: docs/results/pressure.csv as committed at HEAD),
without a simulation:

1. round trip: with no report at all, OUT/tables/pressure.csv is byte for byte the CSV it was given: the
   repository's docs/results/pressure.csv (the file, and with git the committed HEAD version through the
   default --pressure-csv HEAD); not a row dropped, added or altered (a CSV of before the cpu_s and commit
   columns: every row's values kept, those two columns added empty);
2. same document: a fixture grid run once from synthetic reports, then again with the reports gone and
   only the first run's CSV: the pressure table, the observations, Fig. 7 and the "Where we fall short"
   bullets are the same text, and the section says how many rows came from the CSV and at which versions;
3. a run present wins over its CSV row; a CSV row of a point without a run keeps its own tool / firmware
   versions; a row of no grid point is not taken; a run stopped from outside (INTERRUPTED) gives no row (its
   point keeps its CSV row); --pressure-csv none takes nothing;
4. each row carries its run's CPU seconds and commit (columns cpu_s, commit): written from the reports, read back
   from the CSV into the section's "measured at" column, its stamp and its CPU sum; a CSV of before those columns
   is still read (its rows' values kept, the columns written back empty, "-" in the table, the stamp "unknown").

usage: check_eval_pressure_csv.py SCRIPTS_EVAL
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from evalcheck import check, fails, load  # tests/nicsim/evalcheck.py


def report(vmh, time_ns, steady_ns, tool="0.1.0", fw="0.1", git="abc1234"):
    node = {"lookup": {"vmh": vmh}}
    return {"result": "PASS", "git_describe": git, "tool_version": tool, "firmware": fw,
            "config": {"nodes": 2, "firmware": "fw", "procs": 4, "ws_pages": 512},
            "workload": {"ops": 10, "bytes": 40960, "time_ns": time_ns, "steady_ns": steady_ns,
                         "latency_ns": {"p50": 1000.0}, "bandwidth_MBps": 1.0, "points": []},
            "verify": {"bytes_checked": 40960, "mismatches": 0},
            "sim": {"cycles_per_s": 1e6, "cpu_s": 2.0, "wall_s": 3.0, "clock_hz": 200000000}, "nodes": [node, node]}


def fixture_report(r):
    """The grid of check_eval_full.py: misses fall with L, with C more at large L, with A at small C."""
    if r.meta["cla"] == "static":
        return report(dict(lookups=1000, misses=0, cold_send=0, cold_recv=0, noncold_send=0, noncold_recv=0),
                      2000, 1000)
    c, l, a = r.meta["cla"]
    miss = int(400 / (l ** 0.5) * (1.0 - 0.1 * (c // 1024) * (l / 128.0)) * (1.0 + 0.5 * (2.0 / a) * (1024.0 / c)))
    t = 1000 + miss + 5 * a + (7 if r.meta["pattern"] == "lu" else 0)
    return report(dict(lookups=9973, misses=miss, cold_send=miss // 4, cold_recv=miss // 3, noncold_send=miss // 5,
                       noncold_recv=miss - miss // 4 - miss // 3 - miss // 5), 2 * t, t)


def run_eval(ev, out, *args):
    env = dict(os.environ, BUILD_DIR=os.path.join(out, "no-build"))  # no nicrun: the lookup benchmark is not run
    return subprocess.run([sys.executable, ev, "--full", "--only", "pressure", "--no-run", "--no-docs", "--out", out]
                          + list(args), env=env, capture_output=True, text=True)


def section(md, m):
    return md.split(m.PRESSURE_HEADING)[1].split("\n## ")[0] if m.PRESSURE_HEADING in md else ""


def generated(md, m):
    """The parts of the pressure section and bullets generated from the rows' figures: the table onwards (table,
    observations, the seed beside ours, Fig. 7) and the "Where we fall short" pressure bullets."""
    sec = section(md, m)
    body = sec[sec.find("| pattern | config |"):] if "| pattern | config |" in sec else ""
    bullets = [ln for ln in md.split("\n") if ln.startswith("* " + m.PRESSURE_BULLET)]
    return body, bullets


def same_rows(got, want, m):
    """got (the CSV written) has the current columns and want's rows: byte for byte when want has the current
    header; else (an older CSV) every value of want's columns kept and the columns it lacks empty."""
    if got == want:
        return True
    g, w = list(csv.DictReader(got.splitlines())), list(csv.DictReader(want.splitlines()))
    if not got.startswith(",".join(m.PRESSURE_CSV_COLS)) or want.startswith(",".join(m.PRESSURE_CSV_COLS)):
        return False
    return len(g) == len(w) and all(all(gr[c] == wr.get(c, "") or (wr.get(c) is None and gr[c] == "")
                                        for c in m.PRESSURE_CSV_COLS) for gr, wr in zip(g, w))


def read(path):
    try:
        with open(path, newline="") as f:
            return f.read()
    except OSError:
        return ""


def main():
    ev = sys.argv[1]
    m = load(ev)
    root = os.path.dirname(os.path.dirname(os.path.abspath(ev)))
    doc_csv = os.path.join(root, m.PRESSURE_CSV_DOC)
    pr = [r for r in m.plan("full") if r.group == "pressure"]
    with tempfile.TemporaryDirectory() as tmp:
        # 1. round trip of the repository's CSV (file, and the committed version through git)
        if os.path.exists(doc_csv):
            out = os.path.join(tmp, "rt")
            p = run_eval(ev, out, "--pressure-csv", doc_csv)
            want = read(doc_csv)
            got = read(os.path.join(out, "tables", "pressure.csv"))
            check(want and same_rows(got, want, m), "round trip: OUT/tables/pressure.csv is %s byte for byte (%d vs %d lines; "
                  "eval: %s)" % (m.PRESSURE_CSV_DOC, got.count("\n"), want.count("\n"), p.stderr[-800:]))
            n = want.count("\n") - 1
            sec = section(read(os.path.join(out, "results.md")), m)
            check("All %d (" % n in sec and "have no run in" in sec, "the section says all %d rows are from the CSV"
                  % n)
            g = subprocess.run(["git", "-C", root, "show", "HEAD:" + m.PRESSURE_CSV_DOC], capture_output=True)
            if g.returncode == 0 and g.stdout:
                g.stdout = g.stdout.decode()  # as stored (its CRLF line ends kept)
                out = os.path.join(tmp, "head")
                p = run_eval(ev, out)  # the default: --pressure-csv HEAD
                got = read(os.path.join(out, "tables", "pressure.csv"))
                check(same_rows(got, g.stdout, m), "round trip of HEAD:%s with the default --pressure-csv (%d vs %d lines: %s)" % (
                    m.PRESSURE_CSV_DOC, got.count("\n"), g.stdout.count("\n"), p.stderr[-800:]))
                check("as committed at " in section(read(os.path.join(out, "results.md")), m),
                      "the section names the commit of the CSV")

        # 2. the same document from the CSV as from the runs
        a = os.path.join(tmp, "a")
        os.makedirs(os.path.join(a, "runs"))
        for r in pr:
            with open(os.path.join(a, "runs", r.name + ".json"), "w") as f:
                json.dump(fixture_report(r), f)
        p = run_eval(ev, a, "--pressure-csv", "none")
        md_a = read(os.path.join(a, "results.md"))
        csv_a = read(os.path.join(a, "tables", "pressure.csv"))
        check(csv_a.count("\n") == len(pr) + 1, "fixture: one CSV row per run (%d lines)" % csv_a.count("\n"))
        body_a, bul_a = generated(md_a, m)
        check("**line size is the strongest parameter**: reproduced" in body_a and bul_a,
              "fixture: observations and bullets generated from the runs")
        # the CSV of those runs, with one row's versions made older (kept per row) and a row of no grid point
        fx = os.path.join(tmp, "fixture.csv")
        lines = csv_a.split("\r\n") if "\r\n" in csv_a else csv_a.split("\n")
        eol = "\r\n" if "\r\n" in csv_a else "\n"
        old = next(i for i, ln in enumerate(lines) if ln.startswith("water,C1K-L8-A2,"))
        f_ = lines[old].split(",")
        ti = m.PRESSURE_CSV_COLS.index("tool")
        f_[ti:ti + 2] = ["0.0.9", "0.0"]
        lines[old] = ",".join(f_)
        lines.insert(len(lines) - 1, "nosuch,C1K-L8-A2" + lines[old][len("water,C1K-L8-A2"):])
        with open(fx, "w", newline="") as f:
            f.write(eol.join(lines))
        b = os.path.join(tmp, "b")
        p = run_eval(ev, b, "--pressure-csv", fx)
        md_b = read(os.path.join(b, "results.md"))
        csv_b = read(os.path.join(b, "tables", "pressure.csv"))
        want = eol.join(ln for ln in lines if not ln.startswith("nosuch,"))
        check(csv_b == want, "CSV only: every grid row of the CSV written back as it was, the row of no grid point "
                             "left out (%d vs %d lines)" % (csv_b.count("\n"), want.count("\n")))
        body_b, bul_b = generated(md_b, m)
        check(body_b == body_a, "CSV only: the table, observations and Fig. 7 text are those of the runs")
        check(bul_b == bul_a, "CSV only: the \"Where we fall short\" bullets are those of the runs")
        sec_b = section(md_b, m)
        check("Rows: %d, every one PASS" % len(pr) in sec_b and "All %d (fft 36 + static, radix 36 + static" % len(pr)
              in sec_b, "CSV only: the section counts the rows from the CSV")
        check("nicsim 0.1.0 and firmware version 0.1 (%d rows); nicsim 0.0.9 and firmware version 0.0 (1 row)" % (
            len(pr) - 1) in sec_b, "CSV only: the rows' versions, each row's own")
        check("nosuch C1K-L8-A2" in p.stdout, "the row of no grid point is reported: " + p.stdout[-300:])
        for png in ("pr_fig5_missrate.png", "pr_fig6_time.png", "pr_fig7_best.png"):
            check(os.path.getsize(os.path.join(b, "plots", png)) > 1000 if os.path.exists(
                os.path.join(b, "plots", png)) else False, "CSV only: plot %s drawn" % png)
        for f in ("pr_fft.dat", "pr_radix.dat", "pr_best.dat"):
            check(read(os.path.join(a, "plots", f)) == read(os.path.join(b, "plots", f)) != "",
                  "CSV only: plot data %s the same as from the runs" % f)

        # 3. runs present win over their rows; the others keep theirs
        c = os.path.join(tmp, "c")
        os.makedirs(os.path.join(c, "runs"))
        mine = [r for r in pr if r.meta["pattern"] == "radix"][:3] + [r for r in pr if r.name == "pr-water-C1K-L8-A2"]
        for r in mine:
            d = fixture_report(r)
            d["workload"]["time_ns"] += 12345
            d["git_describe"] = "def5678"
            with open(os.path.join(c, "runs", r.name + ".json"), "w") as f:
                json.dump(d, f)
        p = run_eval(ev, c, "--pressure-csv", fx)
        with open(os.path.join(c, "tables", "pressure.csv"), newline="") as f:
            got = {(x["pattern"], x["config"]): x for x in csv.DictReader(f)}
        with open(fx, newline="") as f:
            given = {(x["pattern"], x["config"]): x for x in csv.DictReader(f) if x["pattern"] != "nosuch"}
        check(len(got) == len(pr), "runs + CSV: one row per grid point (%d)" % len(got))
        names = {(r.meta["pattern"], r.meta["config"]) for r in mine}
        check(all(got.get(k) == v for k, v in given.items() if k not in names),
              "runs + CSV: every other row as the CSV has it")
        check(all(k in got and int(got[k]["time_ns"]) == int(given[k]["time_ns"]) + 12345 for k in names),
              "runs + CSV: a run present wins over its row")
        check(got.get(("water", "C1K-L8-A2"), {}).get("tool") == "0.1.0",
              "runs + CSV: the run's versions, not its old row's")
        sec_c = section(read(os.path.join(c, "results.md")), m)
        check("Measured at commits def5678, abc1234 (def5678: the 4 runs present; abc1234: the %d rows from" % (
            len(pr) - 4) in sec_c and "(each row's own commit column)" in sec_c,
              "runs + CSV: stamped with the runs' commit and the CSV rows' own (their commit column)")
        body_c, _ = generated(read(os.path.join(c, "results.md")), m)
        check("| radix | static | " in body_c and body_c.count("| def5678 |") == 4 and
              body_c.count("| abc1234 |") == len(pr) - 4, "runs + CSV: each table row's \"measured at\"")
        check("the CSV's rows: %d CPU s over the %d that carry it)" % (2 * (len(pr) - 4), len(pr) - 4) in sec_c,
              "runs + CSV: the CSV rows' CPU seconds summed")
        check(all(got[k]["cpu_s"] == "2.0" and got[k]["commit"] == ("def5678" if k in names else "abc1234")
                  for k in got), "runs + CSV: every row's cpu_s and commit written")
        check("4 (radix 2 + static, water 1) are runs" in sec_c and "the other %d (" % (len(pr) - 4) in sec_c,
              "runs + CSV: the section counts runs and CSV rows")
        check("Simulation cost: 8 CPU s for these 4 runs" in sec_c, "runs + CSV: the cost of the runs present only")
        check("radix, water: rows of both kinds" in sec_c and "(static: radix run; water CSV row)" in sec_c,
              "runs + CSV: the patterns whose ratios mix runs and CSV rows are named")

        # a run stopped from outside (INTERRUPTED, partial) gives no row: the point keeps its CSV row
        k_ = next(r for r in pr if r.name == "pr-fft-C1K-L8-A2")
        d = fixture_report(k_)
        d.update(result="INTERRUPTED", partial=True, error="stopped by SIGTERM at cycle 1 (partial)")
        with open(os.path.join(c, "runs", k_.name + ".json"), "w") as f:
            json.dump(d, f)
        p = run_eval(ev, c, "--pressure-csv", fx)
        with open(os.path.join(c, "tables", "pressure.csv"), newline="") as f:
            got = {(x["pattern"], x["config"]): x for x in csv.DictReader(f)}
        check(got.get(("fft", "C1K-L8-A2")) == given[("fft", "C1K-L8-A2")] and
              "pr-fft-C1K-L8-A2: INTERRUPTED" in p.stdout, "an INTERRUPTED run: its CSV row kept, said so")
        os.remove(os.path.join(c, "runs", k_.name + ".json"))

        # --pressure-csv none: only the runs
        d_ = os.path.join(tmp, "d")
        shutil.copytree(os.path.join(c, "runs"), os.path.join(d_, "runs"))
        p = run_eval(ev, d_, "--pressure-csv", "none")
        check(read(os.path.join(d_, "tables", "pressure.csv")).count("\n") == 5, "--pressure-csv none: the 4 runs only")
        # 4. a CSV of before the cpu_s and commit columns: read, its rows kept, the columns written back empty
        e = os.path.join(tmp, "e")
        fo = os.path.join(tmp, "old.csv")
        with open(fx, newline="") as f:
            rd = list(csv.reader(f))
        k = len(m.PRESSURE_CSV_COLS) - len(m.PRESSURE_CSV_OPTIONAL)
        check(rd[0][k:] == list(m.PRESSURE_CSV_OPTIONAL), "the optional columns are the CSV's last: %r" % rd[0])
        with open(fo, "w", newline="") as f:
            csv.writer(f, lineterminator=eol).writerows([r_[:k] for r_ in rd])
        p = run_eval(ev, e, "--pressure-csv", fo)
        with open(os.path.join(e, "tables", "pressure.csv"), newline="") as f:
            ge = list(csv.DictReader(f))
        with open(fo, newline="") as f:
            we = [x for x in csv.DictReader(f) if x["pattern"] != "nosuch"]
        check(len(ge) == len(pr) and all(all(g_[c] == w_[c] for c in w_) and g_["cpu_s"] == "" and g_["commit"] == ""
                                         for g_, w_ in zip(ge, we)),
              "old CSV: every row kept, cpu_s and commit empty (%d rows: %s)" % (len(ge), p.stderr[-300:]))
        sec_e = section(read(os.path.join(e, "results.md")), m)
        body_e, _ = generated(read(os.path.join(e, "results.md")), m)
        check("Measured at commit unknown (all %d rows" % len(pr) in sec_e and "the CSV's rows carry no CPU time"
              in sec_e and body_e.count(" | - |") == len(pr),
              "old CSV: stamped unknown, no CPU time, \"-\" in every row's measured at")
    # 5. the stamp of rows without a commit column: the CSV commit's stamp less the commits other rows carry
    m.PRESSURE_CSV = "HEAD"
    m._pressure_csv = {"rows": [], "source": m.PRESSURE_CSV_DOC, "commit": "c0ffee0", "skipped": [],
                       "stamp": "04aa4b3, d64a86f-dirty, 275405c"}
    rows = [{"run": "a", "csv": {}, "git": "04aa4b3"}] + [{"run": "b%d" % i, "csv": {}, "git": None} for i in range(3)]
    got = m.pressure_measured(rows, {})
    check(got.startswith("Measured at commits 04aa4b3, d64a86f-dirty, 275405c (all 4 rows") and
          "1 with their own commit column, 3 without: d64a86f-dirty, 275405c, the stamp" in got,
          "stamp: rows without a commit column keep the old commits only: " + got)
    got = m.pressure_measured(rows[:1], {})
    check(got.startswith("Measured at commit 04aa4b3 (all 1 rows") and "d64a86f" not in got,
          "stamp: every row with its own commit: " + got)
    got = m.pressure_measured(rows[1:], {})
    check("Measured at commits 04aa4b3, d64a86f-dirty, 275405c" in got, "stamp: no row with a commit: the whole "
          "stamp: " + got)
    # the CSV's row of 04aa4b3 replaced by a run present: its commit still leaves the old rows' stamp
    m._pressure_csv["rows"] = [{"pattern": "radix", "commit": "04aa4b3"}]
    got = m.pressure_measured(rows[1:] + [{"run": "pr-radix-x"}], {"pr-radix-x": {"git_describe": "04aa4b3"}})
    check("(04aa4b3: the 1 runs present; d64a86f-dirty, 275405c: the 3 rows" in got, "stamp: a CSV row's commit "
          "left out of the old rows' stamp when a run replaces that row: " + got)
    print("eval_pressure_csv: " + ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
