#!/usr/bin/env python3
"""Determinism of the simulated cluster: nicrun with the same arguments and seed gives the same
run (every node's result line, cycle for cycle, and the switch's counters), with and without
idle skipping; a different seed gives a different run."""
import argparse
import subprocess
import sys


def outcome(nicrun, args):
    r = subprocess.run([nicrun, "--quiet", *args], capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("nicrun: node") or l.startswith("nicrun: link")]
    return r.returncode, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nicrun", required=True)
    ap.add_argument("--seed", default="11")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    base = [x for x in a.args if x != "--"]
    runs = {
        "first": outcome(a.nicrun, ["--seed", a.seed, *base]),
        "again": outcome(a.nicrun, ["--seed", a.seed, *base]),
        "no-skip": outcome(a.nicrun, ["--seed", a.seed, "--no-skip", *base]),
        "other seed": outcome(a.nicrun, ["--seed", str(int(a.seed) + 1), *base]),
    }
    for name, (rc, lines) in runs.items():
        print(f"== {name}: exit {rc}")
        for l in lines:
            print("  " + l)
    fails = []
    if runs["first"][0] != 0:
        fails.append("the run itself failed")
    if runs["again"] != runs["first"]:
        fails.append("same seed, different run")
    if runs["no-skip"] != runs["first"]:
        fails.append("idle skipping changed the run")
    if runs["other seed"][1] == runs["first"][1]:
        fails.append("a different seed gave the identical run (faults not seeded?)")
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
