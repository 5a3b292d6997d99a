#!/usr/bin/env python3
"""nicsim.eval_pressure: scripts/eval's "caches under pressure" logic (issue 16 item 1) without a
simulation: the plan (default set and --full's 36 points, the scaling), the rows built from run
reports (miss % split cold / non-cold x send / receive), the four seed observations' verdicts on
synthetic grids that do and do not show them, Fig. 7's best configuration, the "Where we fall
short" bullets and the splice of the section into docs/results.md.

usage: check_eval_pressure.py SCRIPTS_EVAL
"""
import os
import tempfile
import sys

from evalcheck import check, fails, load  # tests/nicsim/evalcheck.py


def report(vmh, time_ns, steady_ns, result="PASS", verified=4096, mismatches=0):
    """A nicsim JSON report with two nodes, each with the given VMH counters."""
    node = {"lookup": {"vmh": vmh}}
    return {"result": result, "workload": {"time_ns": time_ns, "steady_ns": steady_ns},
            "verify": {"bytes_checked": verified, "mismatches": mismatches}, "tool_version": "t1",
            "firmware": "fw1", "config": {"procs": 4, "ws_pages": 512}, "nodes": [node, node]}


def grid_rows(m, miss_of, time_of=None, pats=("fft",)):
    """Pressure rows over the whole scaled grid, miss % from miss_of(C, L, A), time from time_of."""
    rows = []
    for p in pats:
        rows.append({"pattern": p, "config": "static", "cla": "static", "result": "PASS", "time_ns": 1000.0,
                     "steady_ns": 500.0, "miss": 0.0})
        for c in m.PRESSURE_C:
            for l in m.SEED_L:
                for a in m.SEED_A:
                    rows.append({"pattern": p, "config": m.cla_name((c, l, a)), "cla": (c, l, a), "result": "PASS",
                                 "time_ns": time_of(c, l, a) if time_of else 1000.0 + miss_of(c, l, a),
                                 "steady_ns": 500.0, "miss": miss_of(c, l, a)})
    return rows


def speedup_compute_checks(m, su, sres):
    """Fig. 6's computation per page: the plan's runs all ask for SPEEDUP_COMPUTE_NS (and are named for it), the
    text states the runs' value (never another), a report made with another --compute-ns is left out and named, the
    fraction of ideal / ranges / slow-down sentences come from the figures, and the committed docs/results.md
    section states the same value as scripts/eval and has 1-node times that are that computation."""
    import re
    cn = m.SPEEDUP_COMPUTE_NS
    plan = [r for r in m.plan("default") if r.group == "speedup"]
    check(cn != m.NICSIM_COMPUTE_NS and all(m.arg_int(r.args, "--compute-ns", -1) == cn for r in plan),
          "speed-up plan: every run has --compute-ns %d (not nicsim's default)" % cn)
    check(all(r.name.startswith("su-c%d-" % cn) and r.meta.get("compute_ns") == cn for r in plan),
          "speed-up plan: the runs are named and tagged for their compute-ns (no old report read as new)")

    def said(md):
        """The compute-ns values the text states (the command line's and the sentence's)."""
        return ({int(x) for x in re.findall(r"--compute-ns (\d+)`", md)}
                | {int(x) for x in re.findall(r"Computation per page and phase: (\d+) ns", md)}
                | {int(x) for x in re.findall(r"`--compute-ns` \((\d+) ns\)", md)})
    # the runs with --compute-ns cn, their reports too: the text says cn, why, and the 1-node time it makes
    su2 = [m.Run(r.name, r.group, ["--compute-ns", str(cn)], r.meta) for r in su]
    res2 = {k: dict(v, config={"compute_ns": cn}) for k, v in sres.items()}
    md = "\n".join(m.speedup_md(su2, res2, {}))
    check(said(md) == {cn} and "%d flops" % m.SPEEDUP_FLOPS_PER_PAGE in md
          and "%.1f us;" % (cn * m.SPEEDUP_TOTAL * m.SPEEDUP_PHASES / 1e3) in md and "another `--compute-ns`" not in md,
          "the text states the runs' compute-ns (%d), its flop estimate and the 1-node time:\n%s" % (cn, md))
    # runs without the option (nicsim's default): the text says the default, not scripts/eval's constant
    md = "\n".join(m.speedup_md(su, sres, {}))
    check(said(md) == {m.NICSIM_COMPUTE_NS} and "flops" not in md,
          "runs at nicsim's default compute-ns: the text says %d, not %d:\n%s" % (m.NICSIM_COMPUTE_NS, cn, md))
    # a report made with another compute-ns than its run asks for: left out of the table, named
    res3 = dict(res2)
    res3["su-fft-static-n8"] = dict(res2["su-fft-static-n8"], config={"compute_ns": m.NICSIM_COMPUTE_NS})
    md = "\n".join(m.speedup_md(su2, res3, {}))
    check(said(md) == {cn} and "| fft | static | 16 / 1.00 | 8 / 2.00 | 5 / 3.20 |\n" in md and "N=8 time" not in md
          and "1 report ran with another `--compute-ns` than the plan's (su-fft-static-n8: %d ns)" % m.NICSIM_COMPUTE_NS
          in md, "a report at another compute-ns: left out and named:\n" + md)
    # fraction of ideal, the per-pattern range, half of ideal, slow-downs: from the figures (16, 8, 5, 4 us)
    md = "\n".join(m.speedup_md(su2, res2, {}))
    check("| fft | static | 100 % | 80 % | 50 % |" in md
          and "fft 2.00 (static, N=2) to 4.00 (static, N=8, 50 % of ideal), closest to ideal static at N=2 (2.00, 100 %)"
          in md and "3 of the 3 points reach half of ideal or more" in md and "No point is a slow-down" in md
          and "Why the slow-downs" not in md, "fraction of ideal and ranges from the figures:\n" + md)
    res4 = {k: dict(v) for k, v in res2.items()}
    res4["su-fft-static-n1"] = dict(res2["su-fft-static-n1"], workload={"time_ns": 7000.0})
    md = "\n".join(m.speedup_md(su2, res4, {}))
    check("1 of the 3 is a slow-down (speed-up below 1): fft static N=2." in md
          and "0 of the 3 points reach half of ideal" in md, "a slow-down named:\n" + md)
    # the committed section: the same compute-ns as scripts/eval states, in the text and in the 1-node times (the
    # modelled computation: compute-ns x pages x the pattern's factor x phases, plus at most a quantum a phase)
    doc = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "..", "docs", "results.md")
    text = open(doc).read()
    sec = text[text.index(m.SPEEDUP_HEADING):]
    sec = sec[:sec.find("\n## ", 1) if "\n## " in sec[1:] else len(sec)]
    check(said(sec) == {cn}, "docs/results.md's speed-up section states compute-ns %d (it says %s)" % (cn, said(sec)))
    one = re.findall(r"^\| (\w+) \| [^|]+ \| (\d+) / 1\.00 \|", sec, re.M)
    check(one and all(0 <= float(t) - cn * m.SPEEDUP_TOTAL * m.SPEEDUP_PHASES * (10 if p == "water" else 1) / 1e3 <= 1.5
                      for p, t in one),
          "docs/results.md's 1-node times are the modelled computation at %d ns per page: %s" % (cn, one))


def main():
    m = load(sys.argv[1])
    m._lookup_cycles = {}  # the lookup benchmark (nicrun) is not run by this test: pressure_md says so

    # the plan: static first, then the default configurations; --full adds the rest of the 36
    runs = [r for r in m.plan("default") if r.group == "pressure"]
    cfgs = []
    for r in runs:
        if r.meta["config"] not in cfgs:
            cfgs.append(r.meta["config"])
    check(cfgs[0] == "static" and cfgs[1] == m.cla_name(m.PRESSURE_CENTER) and runs[len(m.PATTERNS)].meta["config"] == cfgs[1], "static first, then the centre: %r" % cfgs[:2])
    check(len(runs) == 5 * (1 + len(m.PRESSURE_DEFAULT)), "default: 5 patterns x (static + %d): %d runs" %
          (len(m.PRESSURE_DEFAULT), len(runs)))
    full = {tuple(r.meta["cla"]) for r in m.plan("full") if r.group == "pressure" and r.meta["cla"] != "static"}
    check(len(full) == 36 and {c for c, _, _ in full} == {1024, 2048, 4096}, "--full: the 36 scaled points")
    r0 = runs[len(m.PATTERNS)]
    a = r0.args
    check(a[a.index("--procs") + 1] == str(m.PRESSURE_PROCS) and a[a.index("--ws-pages") + 1] == str(m.PRESSURE_WS)
          and a[a.index("--cache") + 1] == "2048,64,4", "a pressure run's options: %r" % a)
    pages = 2 * m.PRESSURE_PROCS * m.PRESSURE_WS
    check(pages > max(m.PRESSURE_C) // 2 and pages >= min(m.PRESSURE_C) * 4,
          "working set per node %d pages exceeds the caches' reach %r" % (pages, m.PRESSURE_C))
    check(m.DOC_GROUPS.get("pressure") == m.PRESSURE_HEADING, "--only pressure --docs splices its section")

    # rows from reports: percentages of both nodes' lookups
    vmh = {"lookups": 100, "misses": 10, "cold_send": 4, "cold_recv": 3, "noncold_send": 2, "noncold_recv": 1}
    R = m.Run("pr-fft-C2K-L64-A4", "pressure", [], {"pattern": "fft", "config": "C2K-L64-A4", "cla": (2048, 64, 4)})
    S = m.Run("pr-fft-static", "pressure", [], {"pattern": "fft", "config": "static", "cla": "static"})
    res = {R.name: report(vmh, 2000, 900), S.name: report(dict(vmh, misses=0, cold_send=0, cold_recv=0,
                                                                noncold_send=0, noncold_recv=0), 1000, 600)}
    rows = m.pressure_rows([R, S], res)
    x = [r for r in rows if r["run"] == R.name][0]
    check(x["lookups"] == 200 and abs(x["cold_send"] - 4.0) < 1e-9 and abs(x["noncold_recv"] - 1.0) < 1e-9
          and abs(x["miss"] - 10.0) < 1e-9 and x["pages_per_node"] == 4096, "row from the report: %r" % x)
    best = m.pressure_best(rows)
    check(best == [("fft", "C2K-L64-A4", 2.0, 1.5)], "Fig. 7 best vs static: %r" % best)
    short = m.pressure_short([R, S], res)
    check(any("more than 3 %" in b and "fft C2K-L64-A4 +100.0%" in b for b in short),
          "short: best config over +3 %%: %r" % short)
    check(any("1 of the 36" in b for b in short), "short: the grid's coverage: %r" % short)
    md = "\n".join(m.pressure_md([R, S], res, {}))
    check(m.PRESSURE_HEADING in md and "| fft | C2K-L64-A4 | 2 | 2.000 | 1.500 | 10.00 | 4.00 | 3.00 | 2.00 | 1.00 |"
          in md, "results.md row:\n" + md)
    nr = [ln for ln in md.splitlines() if ln.startswith("Not run (or not passed) of the 36: fft: C2K-L8-A4, C2K-L16-A4,")]
    check(len(nr) == 1 and "C2K-L64-A4" not in nr[0] and nr[0].count(", C") == 34 and nr[0].endswith("C4K-L8-A8."),
          "the 35 points not run are named, in run order:\n" + md)
    check(m.pressure_missing(grid_rows(m, lambda c, l, a: 1.0)) == [], "a whole grid: nothing missing")
    bad = dict(res)
    bad[R.name] = report(vmh, 2000, 900, mismatches=3)
    check("**except pr-fft-C2K-L64-A4**" in "\n".join(m.pressure_md([R, S], bad, {})), "a mismatch is named")

    # the plot data: every pattern file has every configuration's row (NaN where it did not pass), so bars line up
    R2 = m.Run("pr-lu-C1K-L8-A2", "pressure", [], {"pattern": "lu", "config": "C1K-L8-A2", "cla": (1024, 8, 2)})
    res2 = dict(res)
    res2[R2.name] = report(vmh, 3000, 1000)
    with tempfile.TemporaryDirectory() as td:
        figs = m.pressure_plots(td, m.pressure_rows([R, S, R2], res2))
        with open(os.path.join(td, "pr_fft.dat")) as f:
            fl = f.read().splitlines()
        check(fl == ['0 "C1K-L8-A2" NaN NaN NaN NaN NaN NaN', '1 "C2K-L64-A4" 4 3 2 1 2 1.5'], "pr_fft.dat: %r" % fl)
        check(set(figs) == {"pr_fig5", "pr_fig6", "pr_fig7"} and all(
            os.path.getsize(os.path.join(td, f)) > 1000 for f in figs.values()), "pressure plots drawn: %r" % figs)

    # the observations on synthetic grids: the seed's shape ...
    def seed_like(c, l, a):
        cold = 100.0 / l                      # line size: the strongest
        cap = (4096.0 / c) * (l / 128.0) * 2  # size matters more at large lines
        conf = (8.0 / a) * (1024.0 / c) * 0.5  # associativity mostly at small sizes
        return cold + cap + conf
    look = lambda c, l, a: 1000.0 + 10 * seed_like(c, l, a) + (0 if a < 8 else 5)  # A8 costs lookup time
    obs = {n: v for n, v, _ in m.pressure_observations(grid_rows(m, seed_like, look, ("fft", "lu")))}
    check(list(obs.values())[:4] == ["reproduced"] * 4, "seed-like grid: all four reproduced: %r" % obs)
    # the seed's groups: water and ocean below fft, lu and radix
    g = lambda rows: [v for n, v, _ in m.pressure_observations(rows) if n.startswith("water and ocean")][0]
    low = lambda c, l, a: 1.0
    high = lambda c, l, a: 10.0
    check(g(grid_rows(m, low, None, ("water", "ocean")) + grid_rows(m, high, None, ("fft", "lu"))) == "reproduced",
          "groups: low water/ocean, high fft/lu: reproduced")
    check(g(grid_rows(m, high, None, ("water",)) + grid_rows(m, low, None, ("fft", "lu"))) == "not reproduced",
          "groups: water above fft/lu: not reproduced")

    # ... and the opposite: associativity dominates, size matters only at small lines, A8 fastest
    def anti(c, l, a):
        return 50.0 / a + (4096.0 / c) * (16.0 / l) * 0.1 + (2048.0 / c) * a * 0.5 + 1.0 / l
    obs2 = {n: v for n, v, _ in m.pressure_observations(grid_rows(m, anti, lambda c, l, a: 2000.0 - 100 * a))}
    check(obs2["line size is the strongest parameter"] == "not reproduced", "anti: line size: %r" % obs2)
    check(obs2["cache size matters more at large lines"] == "not reproduced", "anti: size at large lines: %r" % obs2)
    check(obs2["associativity matters mostly at small cache sizes"] == "not reproduced", "anti: assoc: %r" % obs2)
    check(obs2["A=4 is the best compromise once lookup cost is counted"] == "not reproduced", "anti: A4: %r" % obs2)
    # A4 with the lookup cost charged again from the measured cycles per lookup (fw_ncp_bench_lkc): times where
    # A8 is 2 % faster than A4 (not reproduced on the simulated time); with 1M lookups per run over 2 NICs at
    # 1 GHz, A8's 60 cycles more than A2 cost +30 ms on 0.98 s (A4's 10: +5 ms on 1 s): charged, A4 is then the
    # best (reproduced), A8's 50 cycles over A4 2.55 % of its run ...
    a4 = "A=4 is the best compromise once lookup cost is counted"

    def with_lookups(rows, n=1000000):
        for x in rows:
            x.update(lookups=n, nics=2, clock_hz=1000000000)
        return rows
    t8 = lambda c, l, a: 1e9 * (0.98 if a == 8 else 1.0)
    lk = {2: 70.0, 4: 80.0, 8: 130.0}
    ob = {n: (v, ev) for n, v, ev in m.pressure_observations(with_lookups(grid_rows(m, seed_like, t8)), lk)}
    check(ob[a4][0] == "not reproduced" and "A4 80.0" in ob[a4][1] and "1 % in 12 of 12 points (reproduced)" in ob[a4][1] and "at most 2.55 %" in ob[a4][1],
          "A4 charged with the measured lookup cost: %r" % (ob[a4],))
    # ... but with cheap A8 scans (A8 costs 2 cycles more than A4) still not
    ob = {n: (v, ev) for n, v, ev in m.pressure_observations(with_lookups(grid_rows(m, seed_like, t8)),
                                                               {2: 70.0, 4: 80.0, 8: 82.0})}
    check(ob[a4][0] == "not reproduced" and "1 % in 0 of 12 points (not reproduced)" in ob[a4][1],
          "A4 charged, cheap A8 scans: %r" % (ob[a4],))
    # and where A4 is fastest on the simulated time, a costly A4 scan charged again makes A2 the best
    t4 = lambda c, l, a: 1e9 * (0.99 if a == 4 else 1.0)
    ob = {n: (v, ev) for n, v, ev in m.pressure_observations(with_lookups(grid_rows(m, seed_like, t4)),
                                                               {2: 70.0, 4: 120.0, 8: 130.0})}
    check(ob[a4][0] == "reproduced" and "1 % in 0 of 12 points (not reproduced)" in ob[a4][1],
          "A4 fastest, its scan charged again: %r" % (ob[a4],))
    ob = {n: (v, ev) for n, v, ev in m.pressure_observations(with_lookups(grid_rows(m, seed_like, t4)))}
    check("was not run" in ob[a4][1], "no lookup benchmark: said so: %r" % (ob[a4],))
    obs3 = {n: v for n, v, _ in m.pressure_observations(grid_rows(m, seed_like)[:1])}
    check(set(obs3.values()) == {"not measured"}, "no dynamic rows: not measured: %r" % obs3)
    # half the patterns: partly
    mixed = grid_rows(m, seed_like, look, ("fft",)) + grid_rows(m, anti, lambda c, l, a: 2000.0 - 100 * a, ("lu",))
    obs4 = {n: v for n, v, _ in m.pressure_observations(mixed)}
    check(obs4["line size is the strongest parameter"] == "partly", "one of two patterns: partly: %r" % obs4)

    # miss cost against the size (item 6): cost = 2 x (latency(miss) - latency(base)) (the one-way latency is
    # the round trip / 2, one miss per round trip), pinning = 2 x (miss - at-reg), retransmission = timeout
    # cost - miss cost; the seed's "grows with the size" verdict both ways
    def mr(lat_us, retx=0, fill=True):
        n = {"lookup": {"vmh": {"misses": 5}}, "driver": {"pins": 7, "evictions": 0, "usage_reads": 0},
             "transport": {"retransmits": retx, "nacks": 0, "timeouts": 0}}
        return {"result": "PASS", "workload": {"time_ns": 1, "points": [{"latency_ns": {"mean": lat_us * 1e3},
                                                                           "ops": 10}]},
                "miss_penalty_ns": dict({"count": 5, "delay_p50": 20e3, "processing_p50": 40e3},
                                        **({"processing_nofill_p50": 30e3, "fill_p50": 12e3} if fill else {})),
                "nodes": [n, n]}

    def mc_runs(lat):
        rs, rres = [], {}
        for (kind, size), v in lat.items():
            r = m.Run("mc-%s-%d" % (kind, size), "misscost", [], {"kind": kind, "size": size})
            rs.append(r)
            rres[r.name] = mr(v, retx=3 if kind == "timeout" else 0, fill=size != 65536)
        return rs, rres
    rs, rres = mc_runs({("base", 4096): 30.0, ("miss", 4096): 100.0, ("timeout", 4096): 170.0, ("at-reg", 4096): 80.0,
                        ("base", 65536): 100.0, ("miss", 65536): 250.0})
    md = "\n".join(m.misscost_md(rs, rres, {}))
    # processing with the fill excluded and the fill, each its own median (not the difference of the medians)
    check("| 4 KiB | 30.0 | 140.0 | 20.0 | 30.0 | 12.0 | 40.0 | 280.0 | 140.0 | 6 |" in md, "misscost row:\n" + md)
    # a report from before the fill was split out: no fill, no processing without it
    check("| 64 KiB | 100.0 | 300.0 | 20.0 | - | - | - | - | - | - |" in md and "miss NACK mode, 4 KiB to 64 KiB: 140.0 -> 300.0 us (grows at every step, +114%)" in md,
          "misscost grows: reproduced:\n" + md)
    rs, rres = mc_runs({("base", 4096): 30.0, ("miss", 4096): 100.0, ("base", 65536): 100.0, ("miss", 65536): 120.0})
    rs, rres = mc_runs({("base", 4096): 30.0, ("miss", 4096): 100.0, ("base", 16384): 40.0, ("miss", 16384): 140.0,
                        ("base", 65536): 100.0, ("miss", 65536): 120.0})
    check("140.0 -> 200.0 -> 40.0 us (not monotonic, -71%)" in "\n".join(m.misscost_md(rs, rres, {})),
          "misscost shrinks: not monotonic")
    check(m.DOC_GROUPS.get("misscost") == m.MISSCOST_HEADING, "--only misscost --docs splices its section")

    # seed Fig. 6's two remarks: line size varies fft / lu time by > 100 %; water with the smallest cache ~ static
    o6 = "line size varies the time of fft, radix and lu by more than 100 % (seed Fig. 6)"
    o7 = ("water and ocean with the smallest cache perform like static (within 3 %; seed Fig. 6: C8K similar to "
          "static)")
    obs = lambda miss, time, pats: {n: v for n, v, _ in m.pressure_observations(grid_rows(m, miss, time, pats))}
    check(obs(seed_like, lambda c, l, a: 1000.0 * 16 / l, ("fft", "lu"))[o6] == "reproduced", "obs 6 reproduced")
    check(obs(seed_like, lambda c, l, a: 1000.0 + 3000.0 / l, ("fft", "lu"))[o6] == "not reproduced",
          "obs 6 not reproduced (1.34x)")
    check(obs(seed_like, lambda c, l, a: 1020.0 if c == m.PRESSURE_C[0] else 900.0, ("water",))[o7] == "reproduced",
          "obs 7 reproduced (+2 %)")
    check(obs(seed_like, lambda c, l, a: 1100.0 if c == m.PRESSURE_C[0] else 900.0, ("water",))[o7] == "not reproduced",
          "obs 7 not reproduced (+10 %)")

    # seed's figures: doubling C at L128 (C2K -> C4K scaled) more than halves fft's and lu's misses; A 2 -> 4 cuts
    # misses, 4 -> 8 less
    o8 = [n for n, _, _ in m.pressure_observations(grid_rows(m, seed_like))][7]
    o9 = "associativity 2 -> 4 cuts misses, 4 -> 8 less"
    check(o8.startswith("doubling the cache at L128 (C2K -> C4K"), "obs 8's name: %r" % o8)
    halves = lambda c, l, a: 8.0 if c == 2048 else 3.0 if c == 4096 else 10.0
    check(obs(halves, None, ("fft", "lu"))[o8] == "reproduced", "obs 8 reproduced (8 -> 3 %)")
    check(obs(lambda c, l, a: 8.0 if c == 2048 else 5.0, None, ("fft", "lu"))[o8] == "not reproduced",
          "obs 8 not reproduced (8 -> 5 %)")
    check(obs(halves, None, ("water",))[o8] == "not measured", "obs 8: only fft and lu")
    check(obs(lambda c, l, a: {2: 9.0, 4: 5.0, 8: 4.0}[a], None, ("fft", "water"))[o9] == "reproduced",
          "obs 9 reproduced (9 -> 5 -> 4)")
    check(obs(lambda c, l, a: {2: 9.0, 4: 8.0, 8: 4.0}[a], None, ("fft", "water"))[o9] == "not reproduced",
          "obs 9 not reproduced (9 -> 8 -> 4)")
    check(obs(lambda c, l, a: {2: 5.0, 4: 6.0, 8: 7.0}[a], None, ("fft",))[o9] == "not reproduced",
          "obs 9 not reproduced (misses grow with A)")

    no_c1k = [x for x in grid_rows(m, seed_like, lambda c, l, a: 1000.0, ("water",)) if x["cla"] == "static"
              or x["cla"][0] != m.PRESSURE_C[0]]
    check({n: v for n, v, _ in m.pressure_observations(no_c1k)}[o7] == "not measured",
          "obs 7 without the smallest cache: not measured (not the smallest measured)")

    # Fig. 6 speed-up: time on the smallest cluster / time on N, per (pattern, config)
    su, sres = [], {}
    for n, t_ns in ((2, 8000.0), (4, 5000.0), (8, 4000.0)):
        r = m.Run("su-fft-static-n%d" % n, "speedup", [], {"pattern": "fft", "config": "static", "cla": "static",
                                                           "nodes": n})
        su.append(r)
        sres[r.name] = {"result": "PASS", "workload": {"time_ns": t_ns}}
    r = m.Run("su-fft-static-n16", "speedup", [], {"pattern": "fft", "config": "static", "cla": "static", "nodes": 16})
    su.append(r)
    sres[r.name] = {"result": "FAIL", "workload": {"time_ns": 1.0}}
    md = "\n".join(m.speedup_md(su, sres, {}))
    check("| fft | static | 8 / 1.00 | 5 / 1.60 | 4 / 2.00 |" in md and "N=16" not in md,
          "speed-up row (the failed 16-node run left out):\n" + md)
    check("no 1-node run passed" in md and "3 of the 4 planned runs" in md,
          "without a 1-node run: over the smallest cluster, said so, and the missing run counted:\n" + md)
    # ... with the 1-node point (nicsim --nodes 1: its own share local, no data moved): the speed-up over 1 node,
    # ideal N
    r = m.Run("su-fft-static-n1", "speedup", [], {"pattern": "fft", "config": "static", "cla": "static", "nodes": 1})
    su.insert(0, r)
    sres[r.name] = {"result": "PASS", "workload": {"time_ns": 16000.0}}
    md = "\n".join(m.speedup_md(su, sres, {}))
    check("| fft | static | 16 / 1.00 | 8 / 2.00 | 5 / 3.20 | 4 / 4.00 |" in md and "N=1 time" in md
          and "time on 1 node / time on N nodes (ideal N)" in md and "4 of the 5 planned runs" in md
          and "the patterns move no data" in md and "loopback" not in md,
          "speed-up over 1 node:\n" + md)
    check("Speed-ups above N" not in md, "no super-linear note at or below ideal")
    sres2 = {k: dict(v, verify={"bytes_checked": 0 if k.endswith("n1") else 2097152}) for k, v in sres.items()}
    md = "\n".join(m.speedup_md(su, sres2, {}))
    check("N = 1, 2, 4, 8: fft 0.00 MiB / 2.00 MiB / 2.00 MiB / 2.00 MiB. The 1-node runs move nothing" in md
          and "No speed-up is above N." in md, "the volumes: none on 1 node, said so:\n" + md)
    sres3 = {k: dict(v, verify={"bytes_checked": 2097152 * (2 if k.endswith("n1") else 1)}) for k, v in sres.items()}
    sres3["su-fft-static-n1"]["workload"] = {"time_ns": 20000.0}
    md = "\n".join(m.speedup_md(su, sres3, {}))
    check("| 20 / 1.00 | 8 / 2.50 |" in md and "Speed-ups above N (fft)" in md
          and "N = 1, 2, 4, 8: fft 4.00 MiB / 2.00 MiB / 2.00 MiB / 2.00 MiB." in md
          and "fft moved data on 1 node: a report of an older nicsim" in md,
          "a 1-node report that moved data (an older nicsim) and a speed-up above N: flagged:\n" + md)
    check(sorted({r.meta["nodes"] for r in m.plan("default") if r.group == "speedup"}) == [1, 2, 4, 8, 16],
          "speed-up plan: node counts 1, 2, 4, 8, 16")
    check(len([r for r in m.plan("default") if r.group == "speedup"]) == 5 * 5 * len(m.SPEEDUP_CONFIGS),
          "speed-up plan: 5 patterns x 5 node counts x configs")
    speedup_compute_checks(m, su, sres)

    # the 64 GB extrapolation (item 5): static bytes per page, the dynamic line over C, the 64 GB row
    mem = {"static": {"lookup": 131072, "code": 1}, "dynamic C16K L64 A4": {"lookup": 16384 * 4 + 1000, "code": 5},
           "dynamic c1024-l64-a4": {"lookup": 1024 * 4 + 1000}, "dynamic c2048-l16-a4": {"lookup": 999999}}
    rl = [m.Run("reglimit-%s" % k, "reglimit", [], {"lookup": k}) for k in ("static", "dynamic")]
    rres = {"reglimit-static": {"result": "PASS", "workload": {"registered_pages": 32768,
                                                                "registration_error": "no room on the NIC"}},
            "reglimit-dynamic": {"result": "PASS", "workload": {"registered_pages": 262144, "registration_error": None}}}
    mm = m.mem64_model(mem, rl, rres)
    check(mm is not None and abs(mm["static_per_page"] - 4.0) < 1e-9 and abs(mm["slope"] - 4.0) < 1e-9
          and abs(mm["icpt"] - 1000) < 1e-6, "mem64 model: %r" % mm)
    md = "\n".join(m.mem64_md(mem, rl, rres))
    # 64 GB = 16M pages: static 4 B each = 67.11 MB; the scaled cache 1000 + 4 x 16M/32 = 2.10 MB
    check("| 64 GB | 16777216 | 67.11 MB | 67 KB | 2.10 MB | model |" in md and "| 128 MiB | 32768 |" in md
          and "static measured, dynamic measured" in md and "reproduced: the dynamic figure is within" in md,
          "mem64 rows:\n" + md)
    check(m.mem64_model({}, rl, rres) is None, "mem64 without the builds' memory: none")

    # splice: the section and its bullets replaced in place
    old = ("# Results\n\n" + m.PRESSURE_HEADING + "\n\nold\n\n## Where we fall short\n\n* Scale: y\n* " +
           m.PRESSURE_BULLET + " old\n")
    new = m.PRESSURE_HEADING + "\n\nnew\n\n## Where we fall short\n\n* " + m.PRESSURE_BULLET + " new\n* Scale: z\n"
    got = m.splice_linkrate(old, new, m.PRESSURE_HEADING, m.DOC_BULLETS["pressure"])
    check(got == old.replace("old\n\n", "new\n\n").replace(" old\n", " new\n"), "splice:\n" + got)
    # the plan's bullets ("Scale:") alone (heading None): only that bullet changes, in its place
    got2 = m.splice_linkrate(got, new, None, m.SCALE_BULLET)
    check(m.SCALE_BULLET in m.PLAN_BULLETS and got2 == got.replace("* Scale: y", "* Scale: z"),
          "splice of the Scale bullet alone:\n" + got2)
    # "Scale:" (with the pressure section) from the plan's own options, not fixed numbers
    sc = m.scale_short("default")
    pl = m.plan("default")
    pat = next(r for r in pl if r.group == "pattern")
    prr = next(r for r in pl if r.group == "pressure" and r.meta["cla"] != "static")
    ws_pr = 2 * m.arg_int(prr.args, "--procs", 1) * m.arg_int(prr.args, "--ws-pages", 0)
    check(sc.startswith(m.SCALE_BULLET) and "runs %d nodes, each with %d source" % (
              m.arg_int(pat.args, "--nodes", 0), m.arg_int(pat.args, "--ws-pages", 0)) in sc
          and "over 1, 2, 4, 8, 16 nodes" in sc and "working set (%d pages) is %s the cache's reach" % (
              ws_pr, " / ".join("%gx" % (ws_pr / c) for c in m.PRESSURE_C)) in sc
          and "(the seed: 8x / 4x / 2x)" in sc and "1/8 of the reach" in sc, "Scale: from the plan:\n" + sc)
    check("%d processes" % m.arg_int(next(r for r in m.plan("smoke") if r.group == "pressure").args, "--procs", 1)
          in m.scale_short("smoke") and "1/64 of the reach" in m.scale_short("smoke"),
          "Scale: the smoke plan's own figures:\n" + m.scale_short("smoke"))

    # "Where we fall short" from the figures (not fixed text): the fast path from the benchmark's lines and the
    # stream's profile (scripts/fw-profile), against the <= 400 target and a 4 KiB frame's time at 10 Gb/s
    # ((4096 + 72) x 8 / 10 Gb/s at 200 MHz = 667 cycles)
    fp = ("# commit abc1234\n"
          "[node 1] node 1 phase A (aligned write): receive  256 packets: median  442 max  469 mean  442 cycles/packet\n"
          "[node 0] node 0 phase A (aligned write): send     256 packets: median  370 max  407 mean  369 cycles/packet\n"
          "[node 0] node 0 phase A (aligned write): core busy 842 cycles/packet (busy 215723, asleep 2978)\n"
          "[node 1] node 1 phase A (aligned write): core busy 797 cycles/packet (busy 204247, asleep 10621)\n")
    prof = {"commit": "def5678", "nodes": {"sender": {"node": 0, "packets": 644, "busy": 776.4},
                                           "receiver": {"node": 1, "packets": 644, "busy": 765.7}}}
    fs = m.fastpath_short(fp, prof)
    check(len(fs) == 1 and fs[0].startswith("Fast path: ") and "sender 776 (above), receiver 766 (above) cycles per 4 KiB packet, against a frame's time" in fs[0]
          and "(667 cycles at 200 MHz" in fs[0] and "median receive 442, send 370 cycles per packet" in fs[0]
          and "(over: receive)" in fs[0] and "sender (node 0) 842, receiver (node 1) 797" in fs[0] and "commit abc1234" in fs[0]
          and "commit def5678" in fs[0], "fast-path bullet from the figures: %r" % fs)
    fast = {"commit": "x", "nodes": {"sender": {"packets": 9, "busy": 600.0}}}
    check(m.fastpath_short(fp.replace("median  442", "median  399"), fast) == [] and m.fastpath_short("", None) == [],
          "fast-path bullet: none when the targets are met or nothing was measured")
    check("sender 600 (within)" in m.fastpath_short(fp, fast)[0] and "the firmware keeps up with the link" in
          m.fastpath_short(fp, fast)[0], "fast path: the median over, the profile within")
    mixed = {"commit": "y", "nodes": {"sender": {"node": 0, "packets": 9, "busy": 686.0},
                                      "receiver": {"node": 1, "packets": 9, "busy": 638.0}}}
    check("sender 686 (above), receiver 638 (within)" in m.fastpath_short(fp, mixed)[0] and "the core, not the link"
          in m.fastpath_short(fp, mixed)[0], "fast path: one node above, one within: each said, the core bounds it")

    # the small-message latency from the breakdown run: the smallest write's measured one-way median
    def bsz(size, cyc, meas):
        return {"size": size, "steps": [{"step": st, "chain": ch, "spans": "", "cycles": c, "ns": None if c is None else c * 5.0}
                                        for st, ch, c in cyc],
                "one_way": {"sum_cycles": sum(c or 0 for _, ch, c in cyc if ch != "completion"),
                            "measured_p50_cycles": meas, "pingpong_p50_ns": meas * 5.0},
                "completion": {"sum_cycles": 1, "measured_p50_cycles": 1}, "ack_frames": {}}
    steps8 = [("post", "both", 60), ("fw_xlate_build", "both", 1100), ("entry_fetch", "both", None),
              ("data_dma", "both", 120), ("fw_receive", "both", 330), ("target_poll", "one_way", 10),
              ("fw_ack", "completion", 5000)]
    brun = m.Run("breakdown", "breakdown", [], {})
    bres = {"breakdown": {"result": "PASS", "git_describe": "cafe123", "breakdown": {
        "clock_hz": 200000000, "sizes": [bsz(8, steps8, 1850), bsz(4096, [(a_, b_, c_ and c_ * 2) for a_, b_, c_ in steps8],
                                                                    4340)]}}}
    bs = m.breakdown_short([brun], bres)
    check(len(bs) == 1 and bs[0].startswith("Small-message latency: 9.25 us one-way for 8 B") and "21.70 us for 4096 B" in bs[0]
          and "1430 of its 1620 cycles (88 %)" in bs[0] and "fw_xlate_build 1100 cycles (5.50 us), fw_receive 330" in bs[0]
          and "commit cafe123" in bs[0], "small-message bullet from the breakdown: %r" % bs)
    check(m.breakdown_short([brun], {"breakdown": {"result": "FAIL"}}) == [], "no breakdown: no bullet")
    check(m.DOC_BULLETS["breakdown"] == m.BREAKDOWN_BULLET and m.FASTPATH_BULLET in m.DOC_BULLETS["linkrate"],
          "--only breakdown / linkrate --docs replace their bullets")

    # line rate with every lookup a hit (--pin-mode at-reg): the plan has the runs, the section and the
    # bullets state the hits figure beside the cold one, and whether the target is met there
    plan = {r.name: r for r in m.plan("default") if r.group == "linkrate"}
    for name in ("rate-write-10-hits", "rate-read-10-hits", "rate-write-bidir-10-hits", "rate-write-25-hits"):
        check(name in plan and "--pin-mode" in plan[name].args and
              plan[name].args[plan[name].args.index("--pin-mode") + 1] == "at-reg" and plan[name].meta.get("hits"),
              "linkrate plan has %s with --pin-mode at-reg" % name)

    def lrres(mbps, limit, retx, iters=200):
        return {"result": "PASS", "git_describe": "cafe123", "config": {"iters": iters},
                "workload": {"bandwidth_MBps": mbps, "limit_MBps": limit},
                "nodes": [{"transport": {"retransmits": retx}}]}
    lruns = [plan[n] for n in ("rate-write-10", "rate-write-10-hits", "rate-read-10", "rate-read-10-hits")]
    for hit_mbps, met in ((1190.0, True), (1100.0, False)):
        lres = {"rate-write-10": lrres(1028.0, 1228.4, 126), "rate-write-10-hits": lrres(hit_mbps, 1228.4, 0),
                "rate-read-10": lrres(915.0, 1228.4, 197), "rate-read-10-hits": lrres(1049.0, 1228.4, 0)}
        md = "\n".join(m.linkrate_md(lruns, lres, {}))
        check("| write, all hits | 10 | 200 |" in md and "`--pin-mode at-reg`" in md and
              ("the target is met with cache hits" in md) == met and
              ("below the target even with cache hits" in md) == (not met),
              "line-rate section: all-hits row and verdict (%.0f MB/s): %r" % (hit_mbps, md[-400:]))
        sh = m.linkrate_short(lruns, lres)
        check(any("With every lookup a hit (`--pin-mode at-reg`, the issue's condition): %.1f %% (%s)." %
                  (100.0 * hit_mbps / 1228.4, "met" if met else "not met") in b for b in sh) and
              any("stream reads at 10 Gb/s reach 74.5 %" in b and "; 85.4 % with every lookup a hit" in b for b in sh),
              "line-rate bullets carry the all-hits figures: %r" % sh)
    # reads with link pause: planned with --pause on (and at-reg), stated in the reads bullet with a verdict
    hp = plan.get("rate-read-10-hits-pause")
    check(hp is not None and hp.args[hp.args.index("--pause") + 1] == "on" and
          hp.args[hp.args.index("--pin-mode") + 1] == "at-reg" and hp.args[hp.args.index("--op") + 1] == "read",
          "linkrate plan has rate-read-10-hits-pause with --pause on, at-reg, reads")
    for mbps, verdict in ((1170.0, "met"), (1150.0, "not met")):
        lres = {"rate-read-10": lrres(915.0, 1228.4, 197), "rate-read-10-hits": lrres(1049.0, 1228.4, 0),
                "rate-read-10-hits-pause": lrres(mbps, 1228.4, 0)}
        sh = m.linkrate_short([plan[n] for n in ("rate-read-10", "rate-read-10-hits", "rate-read-10-hits-pause")],
                              lres)
        check(any("%.1f %% with every lookup a hit and link pause (`--pause on`: %s)" % (100.0 * mbps / 1228.4, verdict)
                  in b for b in sh), "reads bullet states the pause figure and its verdict: %r" % sh)

    # incast (issue 14): the 8-to-1 target configuration from a cold start and with every lookup a hit; the section
    # states a verdict per set of rows, the bullet appears only while a part of the target is not met
    plan = {r.name: r for r in m.plan("default") if r.group == "incast"}
    for seed in m.INCAST8_SEEDS:
        check(("incast8-s%d" % seed) in plan, "incast plan has incast8-s%d" % seed)
    h = plan.get("incast8-hits-s%d" % m.INCAST8_SEEDS[0])
    check(h is not None and "--pin-mode" in h.args and h.args[h.args.index("--pin-mode") + 1] == "at-reg" and
          h.meta.get("hits") and h.args[h.args.index("--seed") + 1] == str(m.INCAST8_SEEDS[0]),
          "incast plan has the all-hits run (at-reg)")
    plan["incast8-hits-s2"] = m.Run("incast8-hits-s2", "incast", [], dict(h.meta, seed=2))  # (a second hits row)

    def ires(pct, drops, jain, steady=None):
        return {"result": "PASS", "git_describe": "cafe123", "workload": {"incast": {
            "goodput_MBps": pct * 12.284, "pct_of_limit": pct, "switch_queue_drops": drops, "switch_marked": 9,
            "mac_rx_drops": 0, "retransmits": 3, "window_cuts": 4, "jain": jain, "steady_pct_of_limit": steady}}}
    iruns = [plan["incast8-s1"], plan["incast8-s2"], plan["incast8-hits-s1"], plan["incast8-hits-s2"]]
    # the steady-state figure (nicsim's steady_pct_of_limit) is stated beside the whole run's when every row of a
    # set has it, and judged on its own; a row without it (a run too short) leaves it out of the verdict
    for cold, hit, drops, bullet, st in ((86.0, 94.3, 0, True, None), (91.0, 94.3, 0, False, None),
                                         (91.0, 94.3, 2, True, None), (86.0, 94.3, 0, True, 92.5),
                                         (86.0, 94.3, 0, True, 88.0)):
        ir = {"incast8-s1": ires(cold, drops, 0.998, st), "incast8-s2": ires(cold + 1.0, 0, 0.995, st and st + 2),
              "incast8-hits-s1": ires(hit, 0, 0.999), "incast8-hits-s2": ires(hit - 0.5, 0, 0.97, 95.0)}
        md = "\n".join(m.incast8_md(iruns, ir))
        steady_txt = ", in the steady state %.1f-%.1f %% (%s)" % (st, st + 2, "met" if st >= 90 else "**not met**") \
            if st else ""
        check(("| cold | 1 | " in md and "| all hits | 2 | " in md and
               ("from a cold start: goodput over the whole run %.1f-%.1f %% of the link (>= 90 %%: %s)%s;" %
                (cold, cold + 1.0, "met" if cold >= 90 else "**not met**", steady_txt)) in md and
               ("| cold | 1 | %.0f | %.1f | %s |" % (cold * 12.284, cold, "%.1f" % st if st else "-")) in md and
               "every lookup a hit: goodput over the whole run 93.8-94.3 % of the link (>= 90 %: met);" in md and
               ("switch queue drops %d (none: %s)" % (drops, "met" if not drops else "**not met**")) in md and
               "Jain 0.970-0.999 (>= 0.95: met)" in md), "incast section rows and verdicts (%g, %d): %r" % (cold, drops, md))
        sh = m.incast_short(iruns, ir)
        check(len(sh) == (1 if bullet else 0) and all(b.startswith(m.INCAST_BULLET) and "from a cold start %.1f-" % cold
                                                     in b and "(`--pin-mode at-reg`) 93.8-94.3 %" in b and
                                                     (not st or ", %.1f-%.1f %% in the steady state (%s)" %
                                                      (st, st + 2, "met" if st >= 90 else "not met") in b)
                                                     for b in sh),
              "incast bullet only while a part of the target is missed (%g, %d): %r" % (cold, drops, sh))
    check(any(h == m.INCAST_HEADING and b == m.INCAST_BULLET for h, _, b in m.doc_sections()),
          "--only incast --docs replaces the incast bullet")

    print("eval_pressure: %s" % ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
