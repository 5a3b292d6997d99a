#!/usr/bin/env python3
"""nicsim.eval_ranks: scripts/eval --ranks K (issue 16: MPI ranks when available):

1. with a stand-in mpirun and nicsim: each run goes through `mpirun ... -np k` with k = min(K, its --nodes,
   nicsim's default 4), one process (no mpirun) with --procs > 1 or K = 1 or without mpirun; --allow-run-as-root
   only as root; the run's .log keeps the nicsim command alone as its first line, so a report made with k ranks
   is reused (cached) by a run with another K;
2. the command line: --ranks 0 refused; --ranks 2 says whether mpirun was found on PATH;
3. when build/bin/nicsim and a real mpirun exist: a small ping-pong through run_one with 2 ranks and with one
   process gives the same simulated figures (the JSON without the simulator's own work).

usage: check_eval_ranks.py SCRIPTS_EVAL   (BUILD_DIR: the build of part 3, default build/)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from evalcheck import check, fails, load  # tests/nicsim/evalcheck.py
NOT_SIMULATED = {"wall_s", "cycles_per_s", "cycles_clocked", "skips", "ranks", "transport", "boundaries",
                 "sync_wait_s", "cpu_s", "per_rank"}


FAKE_NICSIM = """#!%s
import json, sys
a = sys.argv[1:]
with open(a[a.index("--json") + 1], "w") as f:
    json.dump({"result": "PASS", "args": a}, f)
print("fake nicsim", " ".join(a))
""" % sys.executable

FAKE_MPIRUN = """#!%s
import os, subprocess, sys
a = sys.argv[1:]
with open(os.environ["FAKE_MPI_LOG"], "a") as f:
    f.write(" ".join(a) + "\\n")
i = a.index("-np")
sys.exit(subprocess.run(a[i + 2:]).returncode)
""" % sys.executable


def flat(d, pre=""):
    if isinstance(d, dict):
        for k, v in d.items():
            if k not in NOT_SIMULATED:
                yield from flat(v, pre + "." + k)
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from flat(v, "%s[%d]" % (pre, i))
    else:
        yield pre, d


def main():
    ev = sys.argv[1]
    m = load(ev)
    real_nicsim = m.NICSIM
    with tempfile.TemporaryDirectory() as tmp:
        bind = os.path.join(tmp, "bin")
        os.makedirs(bind)
        for name, text in (("nicsim", FAKE_NICSIM), ("mpirun", FAKE_MPIRUN)):
            with open(os.path.join(bind, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(bind, name), 0o755)
        mlog = os.path.join(tmp, "mpi.log")
        os.environ["FAKE_MPI_LOG"] = mlog
        out = os.path.join(tmp, "out")
        os.makedirs(os.path.join(out, "runs"))
        m.NICSIM = os.path.join(bind, "nicsim")
        m.BUILD = os.path.join(tmp, "no-build")  # no ncp.img: only nicsim's time decides what is cached
        m.RANKS, m.MPIRUN = 3, os.path.join(bind, "mpirun")
        runs = [m.Run("two", "x", ["--workload", "fft", "--nodes", "2"], {}),
                m.Run("eight", "x", ["--workload", "fft", "--nodes", "8"], {}),
                m.Run("default", "x", ["--workload", "fft"], {}),
                m.Run("procs", "x", ["--workload", "fft", "--nodes", "8", "--procs", "4"], {})]
        want = {"two": 2, "eight": 3, "default": 3, "procs": 1}
        for r in runs:
            check(m.run_ranks(r) == want[r.name], "%s: %d ranks (want %d)" % (r.name, m.run_ranks(r), want[r.name]))
        os.utime(m.NICSIM, (1, 1))  # older than every report
        for r in runs:
            open(mlog, "a").close()
            n0 = len(open(mlog).read().splitlines())
            _, st, _ = m.run_one(r, out)
            calls = open(mlog).read().splitlines()[n0:]
            with open(os.path.join(out, "runs", r.name + ".json")) as f:
                d = json.load(f)
            with open(os.path.join(out, "runs", r.name + ".log")) as f:
                lines = f.read().splitlines()
            check(st == "exit 0" and d["result"] == "PASS" and d["args"][-len(r.args):] == r.args,
                  "%s: run through the stand-ins (%s)" % (r.name, st))
            k = want[r.name]
            if k > 1:
                root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
                check(len(calls) == 1 and calls[0].split()[:len(root) + 3] == root + ["--oversubscribe", "-np", str(k)],
                      "%s: mpirun -np %d (%r)" % (r.name, k, calls))
                check(lines[1] == "# %d MPI ranks: %s" % (k, " ".join(m.mpirun_prefix(k))), "%s: the log names the "
                      "ranks: %r" % (r.name, lines[:2]))
            else:
                check(not calls, "%s: one process, no mpirun (%r)" % (r.name, calls))
            check(lines[0] == "$ " + " ".join([m.NICSIM, "--no-progress", "--json",
                                               os.path.join(out, "runs", r.name + ".json.tmp")] + r.args),
                  "%s: the log's first line is the nicsim command alone: %r" % (r.name, lines[0]))
        # a report of 3 ranks is reused by a run of one process (and the other way)
        m.RANKS = 1
        check(m.run_ranks(runs[1]) == 1 and m.run_one(runs[1], out)[1] == "cached", "K=1 reuses the 3-rank report")
        m.RANKS, m.MPIRUN = 3, None
        check(m.run_ranks(runs[1]) == 1, "no mpirun: one process")
        os.remove(os.path.join(out, "runs", "eight.json"))
        n0 = len(open(mlog).read().splitlines())
        check(m.run_one(runs[1], out)[1] == "exit 0" and len(open(mlog).read().splitlines()) == n0,
              "no mpirun: run as one process")

        # 2. the command line
        p = subprocess.run([sys.executable, ev, "--ranks", "0", "--no-run", "--out", os.path.join(tmp, "o0")],
                           capture_output=True, text=True)
        check(p.returncode == 2 and "--ranks" in p.stderr, "--ranks 0 refused: %s" % p.stderr[-200:])
        nompi = os.path.join(tmp, "nompi")  # a PATH without mpirun: git and gnuplot only
        os.makedirs(nompi)
        for tool in ("git", "gnuplot"):
            if shutil.which(tool):
                os.symlink(shutil.which(tool), os.path.join(nompi, tool))
        for path, found in ((bind + os.pathsep + os.environ.get("PATH", ""), True), (nompi, False)):
            p = subprocess.run([sys.executable, ev, "--smoke", "--ranks", "2", "--no-run", "--no-docs", "--only",
                                "pingpong", "--out", os.path.join(tmp, "o%d" % found)],
                               capture_output=True, text=True, env=dict(os.environ, PATH=path,
                                                                        BUILD_DIR=os.path.join(tmp, "no-build")))
            check(("each run over up to 2 MPI ranks (%s)" % os.path.join(bind, "mpirun") in p.stdout) if found else
                  ("no mpirun on PATH: each run is one process" in p.stdout), "--ranks 2, mpirun %s: %s" % (
                      "found" if found else "missing", (p.stdout + p.stderr)[-300:]))

        # 3. a real run: 2 ranks against one process
        mpirun = shutil.which("mpirun")
        # (its firmware too: a build whose nicsim was built without the images, the sanitizer's
        # build/sanitize, has none, and nicsim then stops with exit 3)
        real_fw = os.path.join(os.path.dirname(os.path.dirname(real_nicsim)), "fw", "ncp.img")
        if os.path.exists(real_nicsim) and os.path.exists(real_fw) and mpirun:
            m.NICSIM, m.BUILD, m.MPIRUN = real_nicsim, os.path.dirname(os.path.dirname(real_nicsim)), mpirun
            rep = {}
            for k in (1, 2):
                m.RANKS = k
                r = m.Run("pp%d" % k, "x", ["--workload", "pingpong", "--nodes", "2", "--size-max", "256", "--iters",
                                            "2"], {})
                _, st, _ = m.run_one(r, out)
                try:
                    with open(os.path.join(out, "runs", r.name + ".json")) as f:
                        rep[k] = json.load(f)
                except (OSError, ValueError):
                    rep[k] = None
                check(st == "exit 0" and rep[k] and rep[k]["result"] == "PASS", "real run with %d rank(s): %s" % (k, st))
            if rep.get(1) and rep.get(2):
                a, b = dict(flat(rep[1])), dict(flat(rep[2]))
                diff = [k for k in set(a) | set(b) if k != ".git_describe" and a.get(k) != b.get(k)]
                check(not diff and ".workload.time_ns" in a, "2 ranks and one process: the same simulated figures "
                      "(differ: %s)" % ", ".join(sorted(diff)[:8]))
                check(rep[2]["sim"].get("ranks") == 2, "the 2-rank report says 2 ranks: %r" % rep[2]["sim"].get("ranks"))
        else:
            print("eval_ranks: no nicsim with its firmware (%s) or no mpirun: the real run skipped" % real_fw)
    print("eval_ranks: " + ("FAIL (%d)" % len(fails) if fails else "PASS"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
