#!/usr/bin/env python3
"""check_power_on: a node's core is held in reset from power-on until the host has loaded the
firmware and released it (hostif.ctrl.core_reset = 1 at reset; node.c power_on_reset).

  check_power_on.py NICRUN IMAGE

Traces node 0 from cycle 0: the first retired instruction must be the firmware's first (a real
instruction at the entry, after the host's load), with no trap before it. Without the power-on
reset the core ran from the empty instruction memory and trapped at pc 0 every 4 cycles.
"""
import os
import subprocess
import sys
import tempfile


def main():
    nicrun, image = sys.argv[1], sys.argv[2]
    trace = os.path.join(tempfile.mkdtemp(), "t.txt")
    rc = subprocess.run([nicrun, "--nodes", "2", "--trace-insn", trace, "--trace-node", "0", "--trace-to",
                         "200000", image], stdout=subprocess.DEVNULL).returncode
    if rc != 0:
        sys.exit("nicrun exited with %d" % rc)
    lines = [l for l in open(trace) if not l.startswith("#")]
    if not lines:
        sys.exit("no instruction retired in the first 200,000 cycles")
    first = lines[0].split()
    cycle, insn = int(first[0]), first[2]
    if "trap" in lines[0] or insn == "00000000" or cycle < 100:
        sys.exit("the core ran before the firmware was loaded: %s" % lines[0].rstrip())
    print("PASS: first instruction at cycle %d: %s" % (cycle, lines[0].strip()))


if __name__ == "__main__":
    main()
