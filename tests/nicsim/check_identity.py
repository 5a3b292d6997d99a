#!/usr/bin/env python3
"""Simulation-speed identity check (docs/simulation-speed.md, issue 13).

Runs one workload several ways and requires the same behaviour from each: the hash of every
output pin of every node in every cycle (--pin-hash) and everything the tool reports except wall
time. The reference evaluates every NIC in every cycle (--no-skip --eval-all); the fast ways are
the default (idle nodes not evaluated, idle clusters skipped), --no-skip (idle nodes not
evaluated) and --eval-all (idle clusters skipped). With --twin, the same reference also runs on
the traced twin (nicrun-trace / nicsim-trace: a separate Verilation with other options and
Verilator's own eval(), no hand-written fast edge), so an optimisation of the build or of the
model's glue that changes behaviour fails here too.

usage: check_identity.py [--twin TWIN] [--min-dozed N] TOOL ARGS...
  --min-dozed N  the --no-skip run must leave at least N node-cycles unevaluated (printed with
                 the pin hash), so that the check covers the optimisation it is meant to check
"""
import re
import subprocess
import sys

WALL = re.compile(r"(wall [0-9.]+ s, [0-9.]+ M cycles/s|in [0-9.]+ s: [0-9.]+ M simulated cycles/s|"
                  r'"wall_s": [0-9.]+, "cycles_per_s": [0-9]+)')
# nicrun's summary counts the work done, which differs by design between the ways of running
WORK = re.compile(r"[0-9]+ clocked, [0-9]+ idle jumps; |[0-9]+ idle node-cycles not evaluated")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout
    h = re.findall(r"pin hash ([0-9a-f]{16}) \(", out)
    if len(h) != 1:
        sys.exit("check_identity: no pin hash from %s (exit %d):\n%s" % (" ".join(cmd), p.returncode, out[-2000:]))
    dozed = re.search(r"; ([0-9]+) idle node-cycles not evaluated", out)
    norm = WORK.sub("(work)", WALL.sub("(wall)", out))
    norm = re.sub(r"pin hash [0-9a-f]{16}", "pin hash", norm)
    return p.returncode, h[0], norm, int(dozed.group(1)) if dozed else None


def main(argv):
    twin, min_dozed = None, 0
    while argv and argv[0].startswith("--"):
        if argv[0] == "--twin":
            twin, argv = argv[1], argv[2:]
        elif argv[0] == "--min-dozed":
            min_dozed, argv = int(argv[1]), argv[2:]
        else:
            sys.exit("check_identity: unknown option " + argv[0])
    tool, args = argv[0], argv[1:]
    ways = [("reference", [tool] + args + ["--no-skip", "--eval-all"]),
            ("default", [tool] + args),
            ("no-skip", [tool] + args + ["--no-skip"]),
            ("eval-all", [tool] + args + ["--eval-all"])]
    if twin:
        ways.append(("traced twin reference", [twin] + args + ["--no-skip", "--eval-all"]))
    ref = None
    bad = 0
    for name, cmd in ways:
        rc, h, norm, dozed = run(cmd)
        print("%-22s exit %d pin hash %s%s" % (name, rc, h, "" if dozed is None else ", %d node-cycles not evaluated" % dozed))
        if ref is None:
            ref = (rc, h, norm)
            continue
        if (rc, h) != ref[:2]:
            print("  DIFFERS from the reference (exit %d, pin hash %s)" % (ref[0], ref[1]))
            bad = 1
        elif norm != ref[2]:
            print("  same pins but a different report:")
            for a, b in zip(ref[2].splitlines(), norm.splitlines()):
                if a != b:
                    print("   - %s\n   + %s" % (a, b))
            bad = 1
        if name == "no-skip" and dozed is not None and dozed < min_dozed:
            print("  only %d node-cycles not evaluated, expected at least %d" % (dozed, min_dozed))
            bad = 1
    print("check_identity: %s" % ("FAIL" if bad else "PASS: every way matches the reference"))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
