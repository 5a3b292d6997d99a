#!/usr/bin/env python3
"""check_link: a frame is serialised once per link (docs/models.md "switch", docs/nic.md "MAC").

  check_link.py NICSIM OUTDIR

Runs a 4 KiB pingpong between two nodes at 5 and at 10 Gb/s, and an 8-byte one at 1 and 4 Gb/s
(slow enough that its frame time, 640 ns at 1 Gb/s, stands well above the host's 50 ns polling
steps). The
sender's MAC serialises a frame on its link and the receiver's PHY on the switch's output link:
two serialisations of (payload + 48 header + 4 FCS) bytes each (the 20 bytes of preamble and gap
delay the next frame, not this one), so the slower rate adds 2 x that many bits at the slow rate
minus at the fast one to the one-way latency (less up to a beat and a cycle per frame: the MAC's
first beat leaves an idle line at once);
one serialisation more or less per hop (the switch serialising again, or the MAC not following the
link's rate) would show as a whole frame time more or less. Exit 0 when it holds, 1 otherwise.
"""
import json
import os
import subprocess
import sys

CLOCK = 200e6
# size: (slow Gb/s, fast Gb/s, bound ns); a frame time is 3,318 ns for 4 KiB at 10 Gb/s and
# 480 ns for 8 B at 1 Gb/s (one serialisation more or less: +-3,318 and +-360 ns); the host polls
# in 50 ns steps
CASES = {8: (1, 4, 240.0), 4096: (5, 10, 300.0)}


def one_way(nicsim, outdir, size, gbps):
    out = os.path.join(outdir, "link-%d-%d.json" % (size, gbps))
    cmd = [nicsim, "--no-progress", "--quiet", "--workload", "pingpong", "--nodes", "2", "--size", str(size),
           "--iters", "8", "--link-gbps", str(gbps), "--json", out]
    print("check_link: $ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode:
        sys.exit("check_link: nicsim failed")
    with open(out) as f:
        d = json.load(f)
    # the fastest of the measured writes: the path itself. The median mixes in which writes met other
    # work on the way (an ACK frame or the previous round's bookkeeping ahead of the pong: at 1 Gb/s a
    # 60-byte frame time is 480 ns), and that moved by a frame time with firmware changes that do not
    # touch the link (d64a86f -> eb286fe: 8 B at 1 Gb/s p50 11,600 -> 11,200 ns, t_min 11,200 -> 11,050)
    return d["workload"]["points"][0]["latency_us"]["t_min"] * 1e3


def main():
    nicsim, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    for size, (lo, hi, bound) in sorted(CASES.items()):
        wire_bits = (size + 48 + 4) * 8
        expect = 2 * (wire_bits / (lo * 5) - wire_bits / (hi * 5)) / CLOCK * 1e9  # G Gb/s = 5G bits/cycle
        slow, fast = one_way(nicsim, outdir, size, lo), one_way(nicsim, outdir, size, hi)
        ok = abs((slow - fast) - expect) <= bound
        print("check_link: %5d B one-way t_min %.0f ns at %d Gb/s, %.0f ns at %d Gb/s: +%.0f ns, expected +%.0f "
              "(two serialisations) +- %.0f: %s" % (size, slow, lo, fast, hi, slow - fast, expect, bound,
                                                    "ok" if ok else "WRONG"))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
