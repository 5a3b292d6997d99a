#!/usr/bin/env python3
"""check_fst.py - nicrun --fst time base, window and scopes (docs/debugging.md).

usage: check_fst.py FSTINFO -- NICRUN ARGS... IMAGE

1. The whole run: timescale 1 ps; the waveform ends at the run's last clocked cycle, in absolute
   simulated time (cycles * 5000 ps at 200 MHz, idle-skipped cycles counted): its end lies
   within the run's simulated span and past the clocked-cycle count when cycles were skipped.
2. --fst-start A --fst-stop B: the first time is A * 5000 ps (A is clocked: the run is busy
   there) and the last is before B * 5000 ps; the file is smaller than the whole run's.
3. --fst-scope u_core: every variable is under nic.nic_top.u_core, and there are fewer.
4. --fst-stop not after --fst-start: setup error (exit 3).
"""
import re
import subprocess
import sys
import tempfile

PS = 5000


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    return r.returncode, r.stdout


def info(fstinfo, path):
    out = subprocess.run([fstinfo, path], stdout=subprocess.PIPE, text=True, check=True).stdout
    d = {"vars": [], "scopes": []}
    for line in out.splitlines():
        k, v = line.split(" ", 1)
        if k == "var":
            d["vars"].append(v)
        elif k == "scope":
            d["scopes"].append(v)
        else:
            d["n" + k if k == "vars" else k] = int(v)
    return d


def main():
    k = sys.argv.index("--")
    fstinfo = sys.argv[1]
    sim = sys.argv[k + 1:]
    tmp = tempfile.mkdtemp()

    rc, out = run(sim[:-1] + ["--fst", tmp + "/all.fst", sim[-1]])
    m = re.search(r"(\d+) cycles simulated \((\d+) clocked, (\d+) idle jumps[;)]", out)
    if rc != 0 or not m:
        sys.exit("the traced run failed (exit %d):\n%s" % (rc, out))
    total, clocked, jumps = map(int, m.groups())
    a = info(fstinfo, tmp + "/all.fst")
    if a["timescale"] != -12:
        sys.exit("timescale %d, want -12 (ps)" % a["timescale"])
    if not (a["end"] <= total * PS and a["end"] >= (total - 2) * PS - PS):
        sys.exit("waveform ends at %d ps; the run simulated %d cycles (%d ps)" % (a["end"], total, total * PS))
    if jumps and a["end"] <= clocked * PS:
        sys.exit("waveform time %d ps does not count the %d skipped cycles" % (a["end"], total - clocked))

    lo, hi = total * 7 // 10, total * 7 // 10 + 1000
    rc, out = run(sim[:-1] + ["--fst", tmp + "/win.fst", "--fst-start", str(lo), "--fst-stop", str(hi), sim[-1]])
    w = info(fstinfo, tmp + "/win.fst")
    if rc != 0 or not (lo * PS <= w["start"] < hi * PS) or not (w["start"] <= w["end"] < hi * PS):
        sys.exit("window [%d, %d) cycles: waveform %d..%d ps (exit %d)\n%s" % (lo, hi, w["start"], w["end"], rc, out))
    import os
    if os.path.getsize(tmp + "/win.fst") >= os.path.getsize(tmp + "/all.fst"):
        sys.exit("the windowed waveform is not smaller than the whole run's")

    rc, out = run(sim[:-1] + ["--fst", tmp + "/core.fst", "--fst-scope", "u_core", sim[-1]])
    c = info(fstinfo, tmp + "/core.fst")
    bad = [v for v in c["vars"] if not v.startswith("nic.nic_top.u_core.")]
    if rc != 0 or not c["vars"] or bad or len(c["vars"]) >= len(a["vars"]):
        sys.exit("--fst-scope u_core: %d vars (whole: %d), outside u_core: %s" % (len(c["vars"]), len(a["vars"]), bad[:5]))

    rc, out = run(sim[:-1] + ["--fst", tmp + "/bad.fst", "--fst-start", "100", "--fst-stop", "100", sim[-1]])
    if rc != 3 or "--fst-stop must be after --fst-start" not in out:
        sys.exit("an empty waveform window must be refused with exit 3, got %d:\n%s" % (rc, out))
    print("check_fst: whole run to %d ps (%d cycles, %d clocked), window [%d, %d) -> %d..%d ps, u_core %d of %d vars: OK"
          % (a["end"], total, clocked, lo, hi, w["start"], w["end"], len(c["vars"]), len(a["vars"])))


if __name__ == "__main__":
    main()
