#!/usr/bin/env python3
"""nicsim.eval_mechanisms: scripts/eval's "Seed mechanisms" section (issue 14; issue 16 item 6: pin at
registration vs pin on miss vs overlapped pinning, the fraction of packets that arrive before their page
is pinned, time to first byte) without a simulation: the plan (the cold stream in every pinning mode), the
pinning test's lines parsed, the section's rows and stamp, the "Pinning modes:" bullet against seed
004's < 1 in 10,000 both ways, `--only mechanisms --no-run` end to end on synthetic reports (its compared
pattern runs taken along) and the splice of a section the document lacks.

usage: check_eval_mechanisms.py SCRIPTS_EVAL
"""
import json
import os
import subprocess
import sys
import tempfile

from evalcheck import check, fails, load  # tests/nicsim/evalcheck.py

PINMODES_OUT = """systest_pf: on-miss       registration     5191 cycles, time to first byte    58891 cycles, packets before their page was pinned 0 / 2176
systest_pf: at-reg        registration    10621 cycles, time to first byte    23521 cycles, packets before their page was pinned 0 / 2176
systest_pf: overlap       registration    10621 cycles, time to first byte    23521 cycles, packets before their page was pinned 0 / 2176
systest_pf: overlap-async registration     5191 cycles, time to first byte    24091 cycles, packets before their page was pinned 3 / 2176
systest_pf: PASS
"""


def report(time_ns, steady_ns=0.0, early=0, packets=100, misses=10, git="abc1234"):
    """A 2-node report; early: the driver's pin_early_misses (all at node 1, the target), packets per node."""
    node = lambda e: {"transport": {"miss_requests": misses, "miss_prefetch_lines": 0, "retransmits": 0,
                                    "tx_packets": packets, "nacks": 0, "timeouts": 0, "loop_frames": 0}, "driver": {"pin_early_misses": e},
                      "lookup": {"vmh": {"lookups": 10 * misses, "misses": misses, "cold_send": misses, "cold_recv": 0,
                                         "noncold_send": 0, "noncold_recv": 0, "evictions": 0}}}
    return {"result": "PASS", "git_describe": git, "tool_version": "0.1.0", "firmware": "0.1",
            "config": {"nodes": 2, "procs": 1, "ws_pages": 512, "firmware": "fw"},
            "workload": {"ops": 8, "bytes": 1 << 21, "time_ns": time_ns, "steady_ns": steady_ns,
                         "latency_ns": {"p50": 1000.0}, "bandwidth_MBps": 1.0, "points": []},
            "verify": {"bytes_checked": 1 << 21, "mismatches": 0}, "sim": {"cycles_per_s": 1e6, "cpu_s": 2.0},
            "miss_penalty_ns": {"count": 0, "delay_p50": 0.0, "delay_p99": 0.0, "processing_p50": 0.0,
                                "processing_p99": 0.0},
            "nodes": [node(0), node(early)]}


def main():
    ev = sys.argv[1]
    m = load(ev)
    # the plan: the cold stream in every pinning mode (seed 004's overlap-async too) and with prefetch
    mech = [r for r in m.plan("default") if r.group == "mechanisms"]
    st = [r for r in mech if "stream" in r.name]
    modes = sorted(r.meta["pin_mode"] for r in st if not r.meta["prefetch"])
    check(modes == sorted(m.PIN_MODES) and set(m.PIN_MODES) >= {"on-miss", "at-reg", "overlap", "overlap-async"},
          "plan: the cold stream in every pinning mode (%s)" % modes)
    check(all(r.args[:len(m.MECH_STREAM_ARGS)] == m.MECH_STREAM_ARGS and
              r.args[r.args.index("--pin-mode") + 1] == r.meta["pin_mode"] for r in st),
          "plan: each stream run is MECH_STREAM_ARGS with its own --pin-mode")
    check(any(r.meta["prefetch"] for r in st), "plan: the stream with prefetch on")
    check("mechanisms" in m.DOC_GROUPS and m.DOC_GROUPS["mechanisms"] == m.MECH_HEADING,
          "--only mechanisms --docs can replace its section")

    # the pinning test's lines
    pm = m.pinmodes_parse("# commit fedcba9\n" + PINMODES_OUT)
    check(pm is not None and pm["commit"] == "fedcba9" and pm["passed"] and
          pm["modes"]["overlap-async"] == {"reg": 5191, "ttfb": 24091, "early": 3, "packets": 2176} and
          len(pm["modes"]) == 4, "pinmodes_parse: every mode, its figures, the commit: %s" % pm)
    check(m.pinmodes_parse("systest_pf: FAIL\n") is None, "pinmodes_parse: None without a mode's line")
    check(m.early_frac(34, 628) == "34 of 628 (5.4 x 10^-2)" and m.early_frac(3, 2176) == "3 of 2176 (1.4 x 10^-3)"
          and m.early_frac(0, 2176) == "0 of 2176", "early_frac: %s, %s" % (m.early_frac(34, 628), m.early_frac(3, 2176)))

    # the section on synthetic reports: the stream's early fraction per overlapped mode, time to first byte in us
    res = {r.name: None for r in mech}
    for r in st:
        pmode = r.meta["pin_mode"]
        res[r.name] = report({"on-miss": 14.6e6, "at-reg": 10.4e6, "overlap": 4.8e6, "overlap-async": 5.0e6}[pmode],
                             early={"overlap": 34, "overlap-async": 50}.get(pmode, 0), packets=314)
    md = "\n".join(m.mechanisms_md(mech, res, pm))
    check(md.startswith(m.MECH_HEADING) and "Measured at commit abc1234" in md, "the section and its stamp:\n" + md)
    check("| stream256k-C1K-L8-A2-pf0-overlap | off | overlap | PASS | 4800 |" in md and
          "34 of 628 (5.4 x 10^-2) |" in md and "50 of 628 (8.0 x 10^-2) |" in md,
          "the stream rows with early / packets (both nodes' packets)")
    check("| stream256k-C1K-L8-A2-pf0-at-reg | off | at-reg | PASS | 10400 | - | 0.712 |" in md,
          "at-reg against on-miss (vs off)")
    check("| overlap-async | 5191 | 24091 | 120 | 3 of 2176 (1.4 x 10^-3) |" in md and
          "| at-reg | 10621 | 23521 | 118 | - |" in md and "commit fedcba9" in md,
          "time to first byte per mode (cycles and us at 200 MHz) and the early packets of the test")
    check("MISSING" in md and "fft-C16K-L64-A4-prefetch16" in md, "a run without a report shows MISSING")
    check("| vs base |" in md and "a lower bound on the packets" in md, "the table says what vs base and early are")
    md0 = "\n".join(m.mechanisms_md(mech, res, None))
    check("Not measured" in md0, "no pinning test output: said so")

    # the bullet: over seed 004's 1 in 10,000 (the stream), then all under it (no bullet)
    b = m.mechanisms_short(mech, res, pm)
    check(len(b) == 1 and b[0].startswith(m.MECH_BULLET) and "the cold stream overlap, 34 of 628 (5.4 x 10^-2)" in b[0]
          and "the system test (commit fedcba9) overlap-async, 3 of 2176 (1.4 x 10^-3)" in b[0]
          and "under it: the system test (commit fedcba9) overlap, 0 of 2176" in b[0]
          and "at-reg 118 us" in b[0] and "on-miss 294 us" in b[0], "the bullet states the fractions: %s" % b)
    res_ok = dict(res)
    for r in st:
        if r.meta["pin_mode"].startswith("overlap"):
            res_ok[r.name] = report(5e6, early=0, packets=314)
    pm_ok = m.pinmodes_parse(PINMODES_OUT.replace("pinned 3 / 2176", "pinned 0 / 2176"))
    check(m.mechanisms_short(mech, res_ok, pm_ok) == [], "no bullet when every fraction is under 1 in 10,000")

    # --only mechanisms --no-run end to end: the compared pattern runs are taken along and their rows shown
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        os.makedirs(os.path.join(out, "runs"))
        bdir = os.path.join(tmp, "build")
        os.makedirs(os.path.join(bdir, "fw"))
        with open(os.path.join(bdir, "fw", "ncp.img"), "w") as f:
            f.write("x")
        with open(os.path.join(out, "runs", "pinmodes.log"), "w") as f:  # kept: newer than the image
            f.write("# commit fedcba9\n" + PINMODES_OUT)
        for r in mech:
            with open(os.path.join(out, "runs", r.name + ".json"), "w") as f:
                json.dump(res[r.name] or report(3e6, 2e6), f)
        for name, t in (("fft-C16K-L64-A4", 4e6), ("fft-static", 3e6), ("lu-C16K-L64-A4", 6e6), ("lu-static", 4e6)):
            with open(os.path.join(out, "runs", name + ".json"), "w") as f:
                json.dump(report(t, t / 2), f)
        env = dict(os.environ, BUILD_DIR=bdir)
        p = subprocess.run([sys.executable, ev, "--only", "mechanisms", "--no-run", "--no-docs", "--out", out],
                           env=env, capture_output=True, text=True)
        check(p.returncode == 0, "--only mechanisms --no-run: exit 0, got %d: %s %s" % (
            p.returncode, p.stdout[-1500:], p.stderr[-1500:]))
        try:
            full = open(os.path.join(out, "results.md")).read()
        except OSError:
            full = ""
        sec = full.split(m.MECH_HEADING)[1].split("\n## ")[0] if m.MECH_HEADING in full else ""
        check("| fft-C16K-L64-A4 | off | on-miss | PASS | 4000 |" in sec and
              "| fft-C16K-L64-A4-prefetch16 | 16 | on-miss | PASS | 3000 | 2000 | 0.750 | +33.3% |" in sec,
              "the pattern run without prefetch and the static one are taken along and compared:\n" + sec)
        check("| overlap | 10621 | 23521 | 118 | 0 of 2176 |" in sec, "the kept pinning test's output in the section")
        check("--only mechanisms --no-run" in sec, "the section says it was regenerated alone")
        # the splice: a document without the section gets it before the heading that follows it in the new text
        old = "# Results\n\nRuns: 1\n\n## Procs\n\nx\n\n## Miss penalty: delay and processing\n\ny\n\n" \
              "## Where we fall short\n\n* Scale: z\n"
        sp = m.splice_linkrate(old, full, m.MECH_HEADING, m.MECH_BULLET)
        i, j, k = sp.find(m.MECH_HEADING), sp.find("## Procs"), sp.find("## Miss penalty")
        check(j < i < k and sp.count(m.MECH_HEADING) == 1 and "* Pinning modes: " in sp and "* Scale: z" in sp,
              "the section spliced in before \"Miss penalty\", its bullet added:\n" + sp)
        sp2 = m.splice_linkrate(sp, full, m.MECH_HEADING, m.MECH_BULLET)
        check(sp2 == sp, "splicing again changes nothing")
    print("eval_mechanisms: " + ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
