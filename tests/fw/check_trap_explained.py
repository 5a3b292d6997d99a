#!/usr/bin/env python3
"""A crashing NCP is explained (sim/node/fwdiag.c): run a tool on fw_trap_demo.img and check that
its output names every required pattern (node, decoded cause, function) and none of the
follow-on noise a halt used to cause (open/probe failures, timeouts, leaked pins, mailbox codes).

  check_trap_explained.py [--no-elf] [--exit N] --want RE ... --forbid RE ... -- CMD ... IMAGE.img

--no-elf copies IMAGE.img alone into a temporary directory first (no IMAGE.elf next to it): the
explanation must fall back to the raw address and say so, the cause still decoded.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-elf", action="store_true")
    ap.add_argument("--exit", type=int, default=1)
    ap.add_argument("--want", action="append", default=[])
    ap.add_argument("--forbid", action="append", default=[])
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    with tempfile.TemporaryDirectory() as tmp:
        if a.no_elf:
            for i, arg in enumerate(cmd):
                if arg.endswith(".img"):
                    dst = os.path.join(tmp, os.path.basename(arg))
                    shutil.copy(arg, dst)
                    cmd[i] = dst
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    out = p.stdout
    bad = []
    if p.returncode != a.exit:
        bad.append(f"exit status {p.returncode}, expected {a.exit}")
    for w in a.want:
        if not re.search(w, out, re.M):
            bad.append(f"missing: {w!r}")
    for f in a.forbid:
        m = re.search(f, out, re.M)
        if m:
            bad.append(f"follow-on noise present: {m.group(0)!r}")
    print(out)
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        return 1
    print("PASS: halt explained, no follow-on noise")
    return 0


if __name__ == "__main__":
    sys.exit(main())
