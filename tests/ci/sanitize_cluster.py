#!/usr/bin/env python3
"""The sanitizer job's cluster runs (tests/ci/sanitize_host.sh, issue 17 item 9).

Runs whole clusters with nicsim and nicrun built under ASan + UBSan (the harness: node, cluster,
switch, host models, driver, user library, the tools; not the Verilated model, see
sim/rtl/nic/CMakeLists.txt) and the same runs with the regular build, and requires of each:
  - the sanitized run exits as the regular one does (0 for every scenario here) and prints no
    sanitizer report (ASan, LeakSanitizer, UBSan "runtime error");
  - the same behaviour: pin hash of every output pin in every cycle, and everything the tool prints
    except wall time (tests/nicsim/check_identity.py's normalisation), so instrumenting the harness
    changed nothing it computes.

usage: sanitize_cluster.py SANITIZED_BIN REGULAR_BIN FW_DIR OUT_DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nicsim"))
from check_identity import WALL, WORK  # noqa: E402  (the normalisation the identity tests use)

# Printed once per process by ASan's swapcontext interceptor whatever the program does; the
# coroutine scheduler announces its stack switches to ASan (sim/host/coro.c, FIBER_START/FINISH).
SWAPCONTEXT_NOTE = re.compile(r"^==[0-9]+==WARNING: ASan doesn't fully support makecontext/swapcontext.*\n", re.M)
REPORT = re.compile(r"(ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|SUMMARY: \w+Sanitizer)")


def scenarios(fw, out):
    ncp = ["--fw", os.path.join(fw, "ncp.img")]
    return [
        ("stream, 3 nodes, drops + duplicates + corruption",
         "nicsim", ncp + ["--workload", "stream", "--nodes", "3", "--iters", "20", "--size", "16384",
                          "--drop", "0.03", "--duplicate", "0.02", "--corrupt", "0.02", "--seed", "5"]),
        ("fft, 4 nodes x 2 processes, OS memory pressure (MMU notifier)",
         "nicsim", ncp + ["--workload", "fft", "--nodes", "4", "--procs", "2", "--ws-pages", "16",
                          "--phases", "1", "--mem-pressure", "20000"]),
        ("pingpong with breakdown probes, event log and capture",
         "nicsim", ncp + ["--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "4096",
                          "--iters", "3", "--breakdown", "--events", os.path.join(out, "ev.jsonl"),
                          "--pcap", os.path.join(out, "cap.pcap")]),
        ("incast 4-to-1, selective repeat, flow and congestion control",
         "nicsim", ncp + ["--workload", "incast", "--nodes", "5", "--iters", "4", "--sr", "on",
                          "--flow", "on", "--cc", "on"]),
        ("raw frames round a 4-node ring with drops and corruption (nicrun)",
         "nicrun", ["--nodes", "4", "--frames", "30", "--check-link", "--drop", "0.05", "--corrupt", "0.05",
                    "--seed", "5", "--quiet", os.path.join(fw, "fw_nic_link.img")]),
    ]


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    h = re.findall(r"pin hash ([0-9a-f]{16}) \(", p.stdout)
    norm = WORK.sub("(work)", WALL.sub("(wall)", SWAPCONTEXT_NOTE.sub("", p.stdout)))
    return p.returncode, p.stdout, h, norm


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    san, reg, fw, out = argv
    os.makedirs(out, exist_ok=True)
    for tool in ("nicsim", "nicrun"):  # instrumented harness, or this job checks nothing
        with open(os.path.join(san, tool), "rb") as f:
            if b"__asan_report_store" not in f.read():
                sys.exit("sanitize: %s/%s is not built with ASan" % (san, tool))
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    bad = 0
    for name, tool, args in scenarios(fw, out):
        args = args + ["--pin-hash"]
        rc_s, out_s, h_s, norm_s = run([os.path.join(san, tool)] + args, env)
        rc_r, out_r, h_r, norm_r = run([os.path.join(reg, tool)] + args, env)
        problems = []
        if REPORT.search(out_s):
            problems.append("sanitizer report")
        if rc_s != 0 or rc_r != 0:
            problems.append("exit %d sanitized, %d regular (0 expected)" % (rc_s, rc_r))
        if len(h_s) != 1 or h_s != h_r:
            problems.append("pin hash %s sanitized vs %s regular" % (h_s, h_r))
        elif norm_s != norm_r:
            problems.append("reports differ")
        print("%-70s %s" % (name, "; ".join(problems) if problems else "ok, pin hash " + h_s[0]))
        if problems:
            bad += 1
            print("---- sanitized %s %s\n%s" % (tool, " ".join(args), out_s[-4000:]))
            if "reports differ" in problems:
                a, b = norm_s.splitlines(), norm_r.splitlines()
                for i, (x, y) in enumerate(zip(a, b)):
                    if x != y:
                        print("first difference, line %d:\n  sanitized: %s\n  regular:   %s" % (i + 1, x, y))
                        break
    print("sanitize: %d of %d cluster runs clean and identical" % (len(scenarios(fw, out)) - bad, len(scenarios(fw, out))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
