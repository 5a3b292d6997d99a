#!/usr/bin/env python3
"""Tests of the difftest machinery itself, with fake_coresim.py standing in for the core.

Scenarios (each asserts an outcome, so the comparison is shown to be able to fail):
  1. a faithful fake (QEMU underneath) passes every seed;
  2. for each planted bug (mulhsu->mulhu, sra->srl, lb->lbu) the runner fails,
     and its bisection names a block that contains the mutated instruction.

Usage: test_harness.py --riscv-cc CC --qemu QEMU [--seeds 1..3] [--workdir DIR]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run_difftest.py")
FAKE = os.path.join(HERE, "fake_coresim.py")


def run_runner(args, workdir, extra):
    cmd = [sys.executable, RUNNER, "--coresim", FAKE, "--riscv-cc", args.riscv_cc, "--qemu", args.qemu,
           "--coresim-arg=--qemu=" + args.qemu, "--workdir", workdir] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--riscv-cc", default="riscv64-unknown-elf-gcc")
    ap.add_argument("--qemu", default="qemu-system-riscv32")
    ap.add_argument("--seeds", default="1..3")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="difftest-harness-")
    failures = []

    rc, out = run_runner(args, os.path.join(workdir, "faithful"), ["--seeds", args.seeds])
    if rc != 0:
        failures.append("faithful fake coresim did not pass (exit %d):\n%s" % (rc, out))
    else:
        print("ok: faithful fake passes seeds %s" % args.seeds)

    for bug, mnemonic in [("mulhsu", "mulhsu"), ("sra", "sra"), ("lb", "lb")]:
        rc, out = run_runner(args, os.path.join(workdir, bug),
                             ["--seeds", "1..6", "--fail-fast", "--coresim-arg=--inject=" + bug])
        if rc != 1:
            failures.append("planted bug %s: runner exit %d, expected 1:\n%s" % (bug, rc, out))
            continue
        m = re.search(r"bisect: first diverging block is #\d+ of \d+.*?\n((?:      .*\n)+)", out)
        if not m:
            failures.append("planted bug %s: no bisection result:\n%s" % (bug, out))
            continue
        block = m.group(1)
        if not re.search(r"^\s+%s\s" % mnemonic, block, re.M):
            failures.append("planted bug %s: bisected block does not contain %s:\n%s" % (bug, mnemonic, block))
            continue
        print("ok: planted bug %s found and bisected to a block with %s" % (bug, mnemonic))

    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
