#!/usr/bin/env python3
"""nicsim --breakdown (docs/nicsim.md "Latency breakdown"; issue 12 "Reporting").

usage: breakdown_test.py CASE NICSIM OUTDIR
  identity  the same pingpong with and without --breakdown: the same exit status, pin hash (every
            output pin of every node, every cycle), summary and JSON report (but the breakdown
            object and wall time)
  figures   8 B and 4 KiB: every write matched; the steps add up to the measured medians within
            the tolerance; each step that must take time does; the 4 KiB data DMA, MAC and wire
            steps exceed the 8 B ones (--inline off) by about the serialisation of the 4088 extra
            bytes at the PCIe and link rates; firmware steps split by function; the text table
            matches the JSON (these with --cut-through off: store-and-forward). 8 B inline (the
            default, ABI 2.4): no data DMA step, fw_to_mac 0, and a shorter one-way median than the
            same writes by DMA. 4 KiB with cut-through (the default): the frame went to the MAC
            before its DMA ended (data_dma cut short, fw_to_mac 0), mac_tx still one serialisation,
            no underrun, and a shorter one-way median than store-and-forward by most of the DMA; at
            25 Gb/s (threshold half a frame) still 200 cycles shorter, no underrun
  badinput  wrong workload, too large a message, the node probe taken (--trace-insn, --gdb):
            exit 3 with a message naming the problem, before anything runs
"""
import json
import os
import re
import subprocess
import sys

WALL = re.compile(r"(wall [0-9.]+ s, [0-9.]+ M cycles/s|in [0-9.]+ s: [0-9.]+ M simulated cycles/s)")
WORK = re.compile(r"[0-9]+ idle node-cycles not evaluated")
# the one-way and completion steps; those that must take time in every configuration
STEPS = ["post", "doorbell", "fw_doorbell", "entry_fetch", "fw_xlate_build", "data_dma", "fw_to_mac", "mac_tx",
         "switch_link", "mac_rx", "fw_receive", "placement", "target_poll", "fw_ack", "ack_wire", "fw_completion",
         "cqe_dma", "poll"]
POSITIVE = ["post", "doorbell", "fw_xlate_build", "data_dma", "fw_to_mac", "mac_tx", "switch_link", "mac_rx",
            "fw_receive", "placement", "fw_ack", "ack_wire", "fw_completion", "cqe_dma"]
# stated tolerance: the sum of the per-step medians is within 3 % (or 40 cycles) of the measured median
TOL_FRAC, TOL_CYC = 0.03, 40


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def fail(msg):
    print("breakdown_test: FAIL: " + msg)
    sys.exit(1)


def strip_report(d):
    """the report without the breakdown, the host's own time (wall and CPU seconds, speed) and the
    simulator's work (the per-rank shares, the evaluated node-cycles: the probe keeps nodes 0 and 1
    from dozing)"""
    d = dict(d)
    d.pop("breakdown", None)
    sim = dict(d.get("sim", {}))
    for k in ("wall_s", "cycles_per_s", "cpu_s", "per_rank", "node_cycles_evaluated"):
        sim.pop(k, None)
    d["sim"] = sim
    return d


def case_identity(nicsim, out):
    base = [nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "4096",
            "--iters", "3", "--warmup", "1", "--pin-hash"]
    res = []
    for tag, extra in (("plain", []), ("bd", ["--breakdown"])):
        js = os.path.join(out, "bd_identity_%s.json" % tag)
        p = run(base + extra + ["--json", js])
        h = re.findall(r"pin hash ([0-9a-f]{16}) \(", p.stdout)
        if p.returncode != 0 or len(h) != 1:
            fail("%s run: exit %d, pin hashes %s\n%s%s" % (tag, p.returncode, h, p.stdout[-2000:], p.stderr[-2000:]))
        summary = p.stdout.split("\nlatency breakdown:")[0]
        if tag == "bd" and "\nlatency breakdown:" not in p.stdout:
            fail("--breakdown printed no table")
        if tag == "plain" and "latency breakdown" in p.stdout:
            fail("a table without --breakdown")
        with open(js) as f:
            d = json.load(f)
        if (tag == "bd") != ("breakdown" in d):
            fail("%s run: breakdown object %s in the report" % (tag, "missing" if tag == "bd" else "present"))
        res.append((h[0], WORK.sub("(work)", WALL.sub("(wall)", summary)), strip_report(d)))
    (h0, s0, d0), (h1, s1, d1) = res
    print("pin hash without %s, with %s" % (h0, h1))
    if h0 != h1:
        fail("the pin hash differs with --breakdown")
    if s0 != s1:
        for a, b in zip(s0.splitlines(), s1.splitlines()):
            if a != b:
                print(" - %s\n + %s" % (a, b))
        fail("the summary differs with --breakdown")
    if d0 != d1:
        for k in sorted(set(d0) | set(d1)):
            if d0.get(k) != d1.get(k):
                print(" key %s differs" % k)
        fail("the JSON report differs with --breakdown")
    print("identity: PASS")


def steps_of(sz):
    return {s["step"]: s["cycles"] for s in sz["steps"]}


def case_figures(nicsim, out):
    js = os.path.join(out, "bd_figures.json")
    iters = 6
    p = run([nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "4096", "--size-max", "4096",
             "--iters", str(iters), "--breakdown", "--cut-through", "off", "--json", js])
    pc = run([nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "4096", "--size-max", "4096",
              "--iters", str(iters), "--breakdown", "--json", js + ".ct"])
    q = run([nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "8",
             "--iters", str(iters), "--breakdown", "--inline", "off", "--json", js + ".8"])
    qi = run([nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "8",
              "--iters", str(iters), "--breakdown", "--json", js + ".8i"])
    for r in (p, q, qi, pc):
        if r.returncode != 0:
            fail("exit %d\n%s%s" % (r.returncode, r.stdout[-3000:], r.stderr[-2000:]))
    print(q.stdout[q.stdout.index("latency breakdown"):])
    print(p.stdout[p.stdout.index("latency breakdown"):])
    with open(js) as f:
        big = json.load(f)["breakdown"]
    with open(js + ".8") as f:
        small = json.load(f)["breakdown"]
    with open(js + ".8i") as f:
        inl = json.load(f)["breakdown"]["sizes"][0]
    # an inline write: no data read (data_dma absent), the build step ends at the frame (fw_to_mac
    # 0), every write matched, and faster one way than by DMA
    si = steps_of(inl)
    if inl["writes"] != 2 * iters or inl["unmatched"] != 0:
        fail("8 B inline: %d writes matched, %d unmatched" % (inl["writes"], inl["unmatched"]))
    if si["data_dma"] is not None or si["fw_to_mac"] != 0 or not si["fw_xlate_build"] or si["fw_xlate_build"] <= 0:
        fail("8 B inline: data_dma %s, fw_to_mac %s, fw_xlate_build %s" %
             (si["data_dma"], si["fw_to_mac"], si["fw_xlate_build"]))
    t_inl = inl["one_way"]["measured_p50_cycles"]
    t_dma = small["sizes"][0]["one_way"]["measured_p50_cycles"]
    print("8 B one way: inline %d cycles, by DMA %d" % (t_inl, t_dma))
    if not 0 < t_inl < t_dma:
        fail("8 B one way: inline %d cycles, not below the DMA path's %d" % (t_inl, t_dma))
    if [s["size"] for s in small["sizes"]] != [8] or [s["size"] for s in big["sizes"]] != [4096]:
        fail("sizes %s %s" % ([s["size"] for s in small["sizes"]], [s["size"] for s in big["sizes"]]))
    clk = big["clock_hz"]
    by = {}
    for name, bd, text in (("8 B", small, q.stdout), ("4 KiB", big, p.stdout)):
        sz = bd["sizes"][0]
        st = steps_of(sz)
        by[name] = st
        if [s["step"] for s in sz["steps"]] != STEPS:
            fail("%s: steps %s" % (name, [s["step"] for s in sz["steps"]]))
        # both directions, every measured round: 2 writes a round, every one matched
        if sz["writes"] != 2 * iters or sz["unmatched"] != 0 or sz["completion_writes"] != 2 * iters:
            fail("%s: %d writes matched (%d unmatched, %d completion), expected %d" %
                 (name, sz["writes"], sz["unmatched"], sz["completion_writes"], 2 * iters))
        for s in POSITIVE:
            if not st[s] or st[s] <= 0:
                fail("%s: step %s is %s, must take time" % (name, s, st[s]))
        for s in STEPS:
            if st[s] is not None and st[s] < 0:
                fail("%s: step %s negative" % (name, s))
        for chain, rows in (("one_way", STEPS[:13]), ("completion", STEPS[:12] + STEPS[13:])):
            c = sz[chain]
            total = sum(st[s] or 0 for s in rows)
            if total != c["sum_cycles"]:
                fail("%s %s: the JSON sum %d is not the steps' %d" % (name, chain, c["sum_cycles"], total))
            meas = c["measured_p50_cycles"]
            if meas <= 0 or abs(total - meas) > max(TOL_CYC, TOL_FRAC * meas):
                fail("%s %s: steps sum to %d cycles, measured median %d (tolerance %d %% or %d cycles)" %
                     (name, chain, total, meas, TOL_FRAC * 100, TOL_CYC))
            if c["residual_cycles"] != meas - total:
                fail("%s %s: residual %d" % (name, chain, c["residual_cycles"]))
            print("%-6s %-10s sum %6d measured %6d" % (name, chain, total, meas))
        # the one-way data time is the pingpong's one-way figure (round trip / 2) within the polling
        # granularity and the host's work between the two halves (a few %)
        pp = sz["one_way"]["pingpong_p50_ns"] * clk / 1e9
        if abs(pp - sz["one_way"]["measured_p50_cycles"]) > 0.1 * pp:
            fail("%s: one-way median %d cycles vs pingpong's p50 %.0f" % (name, sz["one_way"]["measured_p50_cycles"], pp))
        # firmware steps split by function (the image's symbols)
        fns = [s.get("functions_mean_cycles") for s in sz["steps"] if s["step"] == "fw_receive"][0]
        if not fns or sum(fns.values()) < 0.9 * st["fw_receive"] or "?" in fns:
            fail("%s: fw_receive by function %s vs %d cycles" % (name, fns, st["fw_receive"]))
        # the text table shows the JSON's figures
        m = re.search(r"\n  placement +([0-9]+) ", text)
        if not m or int(m.group(1)) != st["placement"]:
            fail("%s: the table's placement row %s, JSON %d" % (name, m and m.group(1), st["placement"]))
    s8, s4 = by["8 B"], by["4 KiB"]
    s4_one_way = big["sizes"][0]["one_way"]["measured_p50_cycles"]
    extra = 4096 - 8
    link = 50.0 / 8  # bytes per cycle at 10 Gb/s, 200 MHz (the default --link-gbps)
    dma = 8.0        # bytes per cycle of the NIC's DMA data path (one 64-bit beat a cycle; PCIe is faster)
    # (step, serialisation of the extra bytes, allowed excess (fraction), allowed shortfall (fraction)):
    # the DMA steps also pay per-request costs (the engine splits a transfer), so they may exceed it more
    checks = [("data_dma", extra / dma, 0.4, 0.1), ("placement", extra / dma, 0.4, 0.1),
              ("mac_tx", extra / link, 0.05, 0.05), ("mac_rx", extra / link, 0.05, 0.05)]
    for s, want, over, under in checks:
        d = s4[s] - s8[s]
        print("%-10s 8 B %5d  4 KiB %5d  delta %5d  serialisation %5.0f" % (s, s8[s], s4[s], d, want))
        if not want * (1 - under) <= d <= want * (1 + over):
            fail("%s: 4 KiB - 8 B = %d cycles, expected about %.0f (serialisation of %d B)" % (s, d, want, extra))
    wire8 = s8["mac_tx"] + s8["switch_link"] + s8["mac_rx"]
    wire4 = s4["mac_tx"] + s4["switch_link"] + s4["mac_rx"]
    print("wire (mac_tx + switch_link + mac_rx): 8 B %d, 4 KiB %d" % (wire8, wire4))
    if not extra / link * 0.9 <= wire4 - wire8:
        fail("the 4 KiB frame's wire time exceeds the 8 B one's by %d, less than one serialisation %.0f" %
             (wire4 - wire8, extra / link))
    # cut-through (docs/nic.md): the 4 KiB frame goes to the MAC while its payload's DMA runs
    with open(js + ".ct") as f:
        ctr = json.load(f)
    ct = ctr["breakdown"]["sizes"][0]
    sc = steps_of(ct)
    if ctr["config"].get("cut_through") is not True:
        fail("4 KiB cut-through: the report's config.cut_through is %s" % ctr["config"].get("cut_through"))
    if ct["writes"] != 2 * iters or ct["unmatched"] != 0:
        fail("4 KiB cut-through: %d writes matched, %d unmatched" % (ct["writes"], ct["unmatched"]))
    und = sum(n["mac"]["tx_underruns"] for n in ctr["nodes"])
    t_ct, t_sf = ct["one_way"]["measured_p50_cycles"], s4_one_way
    print("4 KiB cut-through: data_dma %s fw_to_mac %s mac_tx %s; one way %d cycles, store-and-forward %d; "
          "underruns %d" % (sc["data_dma"], sc["fw_to_mac"], sc["mac_tx"], t_ct, t_sf, und))
    if sc["fw_to_mac"] != 0 or not sc["data_dma"] or not 0 < sc["data_dma"] < 0.6 * s4["data_dma"]:
        fail("4 KiB cut-through: data_dma %s (store-and-forward %d), fw_to_mac %s: the frame did not start "
             "before its DMA ended" % (sc["data_dma"], s4["data_dma"], sc["fw_to_mac"]))
    if abs(sc["mac_tx"] - s4["mac_tx"]) > 0.05 * s4["mac_tx"]:
        fail("4 KiB cut-through: mac_tx %d, store-and-forward's %d" % (sc["mac_tx"], s4["mac_tx"]))
    if und != 0:
        fail("4 KiB cut-through: %d underruns at the default PCIe latency" % und)
    if not t_ct < t_sf - 0.5 * (s4["data_dma"] - sc["data_dma"]):
        fail("4 KiB one way: cut-through %d cycles, store-and-forward %d: not shorter by half the DMA it "
             "overlaps (%d)" % (t_ct, t_sf, s4["data_dma"] - sc["data_dma"]))
    # at 25 Gb/s the NCP starts a frame when half its largest payload is in (the MAC sends a beat a
    # cycle there, as fast as the DMA writes one): shorter one way than store-and-forward, no underrun
    t25 = {}
    for ct in ("on", "off"):
        j25 = js + ".25" + ct
        r = run([nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "4096", "--size-max", "4096",
                 "--iters", str(iters), "--link-gbps", "25", "--cut-through", ct, "--breakdown", "--json", j25])
        if r.returncode != 0:
            fail("25 Gb/s, cut-through %s: exit %d\n%s" % (ct, r.returncode, r.stderr[-2000:]))
        with open(j25) as f:
            d25 = json.load(f)
        if sum(n["mac"]["tx_underruns"] for n in d25["nodes"]) != 0:
            fail("25 Gb/s, cut-through %s: underruns" % ct)
        t25[ct] = d25["breakdown"]["sizes"][0]["one_way"]["measured_p50_cycles"]
    print("4 KiB one way at 25 Gb/s: cut-through %d cycles, store-and-forward %d" % (t25["on"], t25["off"]))
    if not t25["on"] < t25["off"] - 200:
        fail("4 KiB one way at 25 Gb/s: cut-through %d cycles, store-and-forward %d: not 200 shorter" %
             (t25["on"], t25["off"]))
    print("figures: PASS")


def case_badinput(nicsim, out):
    cases = [
        (["--workload", "stream", "--breakdown"], "needs --workload pingpong"),
        (["--workload", "fft", "--nodes", "4", "--breakdown"], "needs --workload pingpong"),
        (["--workload", "pingpong", "--size-max", "8192", "--breakdown"], "at most 4096"),
        (["--workload", "pingpong", "--size-min", "65536", "--breakdown"], "at most 4096"),
        (["--workload", "pingpong", "--breakdown", "--trace-insn", os.path.join(out, "bd_trace.txt")], "node probe"),
        (["--workload", "pingpong", "--breakdown", "--gdb", "0"], "node probe"),
    ]
    for args, msg in cases:
        p = run([nicsim, "--nodes", "2"] + args if "--nodes" not in args else [nicsim] + args, timeout=60)
        print("%-70s exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip().splitlines()[-1:]))
        if p.returncode != 3 or msg not in p.stderr:
            fail("%s: exit %d, stderr %r (expected exit 3 and %r)" % (" ".join(args), p.returncode, p.stderr, msg))
        if "latency breakdown" in p.stdout:
            fail("%s: a table was printed" % " ".join(args))
    print("badinput: PASS")


def main(argv):
    if len(argv) != 3 or argv[0] not in ("identity", "figures", "badinput"):
        sys.exit(__doc__)
    os.makedirs(argv[2], exist_ok=True)
    {"identity": case_identity, "figures": case_figures, "badinput": case_badinput}[argv[0]](argv[1], argv[2])


if __name__ == "__main__":
    main(sys.argv[1:])
