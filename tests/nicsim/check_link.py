#!/usr/bin/env python3
"""check_link: a frame is serialised once per link (docs/models.md "switch", docs/nic.md "MAC").

  check_link.py NICSIM OUTDIR

Runs an 8-byte and a 4 KiB pingpong between two nodes at 5 and at 10 Gb/s. The sender's MAC
serialises a frame on its link and the receiver's PHY on the switch's output link: two
serialisations of (payload + 48 header + 4 FCS + 20 preamble/gap) bytes each, so halving the rate
adds exactly 2 x that many bits at 25 bits/cycle minus at 50 (200 MHz) to the one-way latency;
one serialisation more or less per hop (the switch serialising again, or the MAC not following the
link's rate) would show as a whole frame time more or less. Exit 0 when it holds, 1 otherwise.
"""
import json
import os
import subprocess
import sys

CLOCK = 200e6
# the host polls (50 ns steps); a frame time is 3,335 ns for 4 KiB at 10 Gb/s, 64 ns for 8 B
BOUND_NS = {8: 60.0, 4096: 300.0}


def one_way(nicsim, outdir, size, gbps):
    out = os.path.join(outdir, "link-%d-%d.json" % (size, gbps))
    cmd = [nicsim, "--no-progress", "--quiet", "--workload", "pingpong", "--nodes", "2", "--size", str(size),
           "--iters", "8", "--link-gbps", str(gbps), "--json", out]
    print("check_link: $ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode:
        sys.exit("check_link: nicsim failed")
    with open(out) as f:
        d = json.load(f)
    return d["workload"]["points"][0]["latency_ns"]["p50"]


def main():
    nicsim, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    for size in (8, 4096):
        wire_bits = (size + 48 + 4 + 20) * 8
        expect = 2 * (wire_bits / 25 - wire_bits / 50) / CLOCK * 1e9
        slow, fast = one_way(nicsim, outdir, size, 5), one_way(nicsim, outdir, size, 10)
        ok = abs((slow - fast) - expect) <= BOUND_NS[size]
        print("check_link: %5d B one-way p50 %.0f ns at 5 Gb/s, %.0f ns at 10 Gb/s: +%.0f ns, expected +%.0f "
              "(two serialisations) +- %.0f: %s" % (size, slow, fast, slow - fast, expect, BOUND_NS[size],
                                                    "ok" if ok else "WRONG"))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
