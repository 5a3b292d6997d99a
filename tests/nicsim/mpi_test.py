#!/usr/bin/env python3
"""nicsim across MPI ranks (docs/simulation-speed.md "Ranks"): the same report for any number of
ranks, and each bad input stopped with a clear error and a nonzero exit.

  mpi_test.py NICSIM MPIRUN CASE

CASE:
  identical    a small fft, a stream with every fault kind and a read stream with link pause: 1
               process (no mpirun), mpirun -np 2 and (fft) -np 3; every simulated figure of the
               JSON reports identical
  rank_map     the small fft under every --rank-map (interleave, block, a list) with 2 and 3 ranks:
               the same report as one process, each rank holding the nodes the map gives it
               (sim.per_rank), its work counted (evaluated node-cycles summing to the nodes'); and
               bad maps refused
  too_many     mpirun -np 3 with --nodes 2 (nicsim and nicrun): refused, every rank exits nonzero
  mismatch     a rank running another build (a copy of nicsim with one byte appended), and a rank
               given other options: refused at start with the rank named
  dies         rank 1 killed (SIGKILL) mid-run: the job ends nonzero within seconds, rank 0 says
               why (no hang)
  hangs        rank 1 stopped (SIGSTOP) mid-run: rank 0 gives up after --mpi-timeout and says so
  nicrun       (NICSIM is nicrun here) fw_nic_link on 4 nodes with drops and corruption, mpirun -np 1
               and -np 2: the same output (every node's PASS cycle and value, the link accounting)

Open MPI refuses to run as root without --allow-run-as-root, and 2 ranks on a busy 2-core
machine need --oversubscribe: both are added here.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# What describes the simulator's own work, not the simulated cluster: allowed to differ.
NOT_SIMULATED = {"wall_s", "cycles_per_s", "cycles_clocked", "skips", "ranks", "transport", "boundaries",
                 "sync_wait_s", "cpu_s", "per_rank"}


def mpirun_cmd(mpirun, np):
    cmd = [mpirun, "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def flat(d, pre=""):
    if isinstance(d, dict):
        for k, v in d.items():
            yield from flat(v, pre + "." + k)
    elif isinstance(d, list):
        for i, v in enumerate(d):
            yield from flat(v, "%s[%d]" % (pre, i))
    else:
        yield pre, d


def load(path):
    with open(path) as f:
        d = json.load(f)
    for k in NOT_SIMULATED:
        d["sim"].pop(k, None)
    # the checkout's state when the run started (git describe --dirty), not the run's: a commit or an
    # edit between the two runs changed it and failed the comparison
    d.pop("git_describe", None)
    return dict(flat(d))


def run(cmd, timeout=300):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def case_identical(nicsim, mpirun, tmp):
    runs = [
        ("fft", ["--workload", "fft", "--nodes", "4", "--ws-pages", "64", "--phases", "2"], [2, 3]),
        ("faults", ["--workload", "stream", "--nodes", "2", "--iters", "40", "--size", "16384", "--drop", "0.03",
                    "--duplicate", "0.03", "--corrupt", "0.03", "--delay", "0.05", "--seed", "7"], [2]),
        ("pause", ["--workload", "stream", "--nodes", "2", "--op", "read", "--pin-mode", "at-reg", "--pause", "on",
                   "--iters", "60"], [2]),
        # cut-through underruns (a host slower than the threshold assumes): poisoned frames, the MAC's
        # own threshold doubling, the transport's resends
        ("underrun", ["--workload", "stream", "--nodes", "2", "--iters", "20", "--pcie-read-latency", "400"], [2]),
    ]
    for name, args, ks in runs:
        ref = os.path.join(tmp, name + "-1.json")
        rc, out, err, _ = run([nicsim, "--quiet"] + args + ["--json", ref])
        if rc != 0:
            fail("%s, one process: exit %d\n%s" % (name, rc, err))
        a = load(ref)
        if a[".sim.cycles"] <= 0 or a[".verify.bytes_checked"] <= 0:
            fail("%s: nothing simulated or verified" % name)
        if name == "faults" and a[".switch.fault_drop"] + a[".switch.fault_corrupt"] == 0:
            fail("faults: no fault was injected: the comparison would prove nothing about them")
        if name == "pause" and a[".switch.pauses"] == 0:
            fail("pause: no pause happened: the comparison would prove nothing about them")
        if name == "underrun" and not any(v for x, v in a.items() if x.endswith(".mac.tx_underruns")):
            fail("underrun: no underrun happened: the comparison would prove nothing about them")
        for k in ks:
            path = os.path.join(tmp, "%s-%d.json" % (name, k))
            rc, out, err, _ = run(mpirun_cmd(mpirun, k) + [nicsim, "--quiet"] + args + ["--json", path])
            if rc != 0:
                fail("%s, %d ranks: exit %d\n%s" % (name, k, rc, err))
            with open(path) as f:
                ranks = json.load(f)["sim"]["ranks"]
            if ranks != k:
                fail("%s: the report says %s ranks, not %d (did mpirun start one MPI job?)" % (name, ranks, k))
            b = load(path)
            diff = [key for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
            if diff:
                fail("%s: %d ranks differ from one process in %d figures, e.g. %s" %
                     (name, k, len(diff), "; ".join("%s %s vs %s" % (x, a.get(x), b.get(x)) for x in diff[:5])))
            print("%s: %d ranks: %d figures identical (cycles %d, %d bytes verified)" %
                  (name, k, len(a), a[".sim.cycles"], a[".verify.bytes_checked"]))


FFT_SMALL = ["--workload", "fft", "--nodes", "4", "--ws-pages", "64", "--phases", "2"]


def case_rank_map(nicsim, mpirun, tmp):
    ref = os.path.join(tmp, "ref.json")
    rc, out, err, _ = run([nicsim, "--quiet"] + FFT_SMALL + ["--json", ref])
    if rc != 0:
        fail("one process: exit %d\n%s" % (rc, err))
    a = load(ref)
    with open(ref) as f:
        one = json.load(f)["sim"]
    if [r["nodes"] for r in one["per_rank"]] != [[0, 1, 2, 3]]:
        fail("one process: per_rank %s" % one["per_rank"])
    total = sum(one["node_cycles_evaluated"])
    if total <= 0 or one["per_rank"][0]["node_cycles_evaluated"] != total:
        fail("one process: evaluated node-cycles %s vs per rank %s" % (one["node_cycles_evaluated"], one["per_rank"]))
    cases = [(2, None, [[0, 2], [1, 3]]), (2, "interleave", [[0, 2], [1, 3]]), (2, "block", [[0, 1], [2, 3]]),
             (3, "0,2,1,0", [[0, 3], [2], [1]]), (3, "block", [[0], [1], [2, 3]])]
    for k, m, want in cases:
        path = os.path.join(tmp, "map-%d-%s.json" % (k, m))
        extra = ["--rank-map", m] if m else []
        rc, out, err, _ = run(mpirun_cmd(mpirun, k) + [nicsim, "--quiet"] + FFT_SMALL + extra + ["--json", path])
        if rc != 0:
            fail("%d ranks, --rank-map %s: exit %d\n%s" % (k, m, rc, err))
        with open(path) as f:
            sim = json.load(f)["sim"]
        got = [r["nodes"] for r in sim["per_rank"]]
        if got != want:
            fail("%d ranks, --rank-map %s: the ranks held %s, not %s" % (k, m, got, want))
        per = [r["node_cycles_evaluated"] for r in sim["per_rank"]]
        ne = sim["node_cycles_evaluated"]
        if per != [sum(ne[i] for i in nodes) for nodes in want] or sum(per) != total:
            fail("%d ranks, --rank-map %s: evaluated node-cycles per rank %s, per node %s (one process: %d)" %
                 (k, m, per, ne, total))
        if any(r["cpu_s"] <= 0 or r["compute_cpu_s"] <= 0 or r["boundaries"] <= 0 for r in sim["per_rank"]):
            fail("%d ranks, --rank-map %s: a rank without work: %s" % (k, m, sim["per_rank"]))
        b = load(path)
        diff = [key for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
        if diff:
            fail("%d ranks, --rank-map %s: %d figures differ from one process, e.g. %s" %
                 (k, m, len(diff), "; ".join("%s %s vs %s" % (x, a.get(x), b.get(x)) for x in diff[:5])))
        print("--rank-map %s, %d ranks: nodes %s, evaluated node-cycles %s; %d figures identical" %
              (m or "(default)", k, got, per, len(a)))
    for m, needle in (("1,0,0,1", "puts node 0 on rank 1"), ("0,0,0,0", "leaves rank 1 without a node"),
                      ("0,1,2,0", "puts node 2 on rank 2, but there are 2 ranks"), ("0,1", "names 2 nodes"),
                      ("0,1,x,1", "bad value"), ("spread", "bad value")):
        expect_refusal(mpirun_cmd(mpirun, 2) + [nicsim, "--quiet"] + FFT_SMALL + ["--rank-map", m],
                       ["nicsim: ", needle], "--rank-map %s, 2 ranks" % m)


def expect_refusal(cmd, needles, what, timeout=120):
    rc, out, err, dt = run(cmd, timeout)
    if rc == 0:
        fail("%s: exit 0\n%s" % (what, err))
    for n in needles:
        if n not in err:
            fail("%s: exit %d but stderr lacks %r:\n%s" % (what, rc, n, err))
    print("%s: exit %d in %.1f s: %s" % (what, rc, dt, next(l for l in err.splitlines() if needles[0] in l)))


def case_too_many(nicsim, mpirun, tmp):
    expect_refusal(mpirun_cmd(mpirun, 3) + [nicsim, "--workload", "pingpong", "--nodes", "2"],
                   ["nicsim: 3 ranks for 2 nodes", "K <= --nodes"], "nicsim, 3 ranks, 2 nodes")
    bindir = os.path.dirname(nicsim)
    expect_refusal(mpirun_cmd(mpirun, 3) + [os.path.join(bindir, "nicrun"), "--nodes", "2",
                                            os.path.join(bindir, "..", "fw", "fw_nic_link.img")],
                   ["nicrun: 3 ranks for 2 nodes", "K <= --nodes"], "nicrun, 3 ranks, 2 nodes")


def case_mismatch(nicsim, mpirun, tmp):
    other = os.path.join(tmp, "nicsim-other")
    shutil.copy(nicsim, other)
    with open(other, "ab") as f:
        f.write(b"\0")  # another build: same code, another executable
    os.chmod(other, 0o755)
    # the copy finds its firmware next to the build: --fw names the image for both
    img = os.path.join(os.path.dirname(nicsim), "..", "fw", "ncp.img")
    base = ["--workload", "pingpong", "--nodes", "2", "--iters", "1", "--size-max", "64", "--fw", img]
    mr = mpirun_cmd(mpirun, 1)
    expect_refusal(mr + [nicsim] + base + [":", "-np", "1", other] + base,
                   ["rank 1 runs a different build (executable hash)", "same nicsim"], "another build on rank 1")
    expect_refusal(mr + [nicsim] + base + ["--seed", "1", ":", "-np", "1", nicsim] + base + ["--seed", "2"],
                   ["rank 1 was given different options"], "other options on rank 1")


def rank_pids(root):
    """The nicsim processes under the mpirun process root, by rank (from their environment)."""
    kids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                st = f.read()
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(pid))
        except (OSError, ValueError):
            pass
    found, todo = {}, [root]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            todo.append(c)
            try:
                with open("/proc/%d/environ" % c, "rb") as f:
                    env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
                with open("/proc/%d/comm" % c) as f:
                    comm = f.read().strip()
            except OSError:
                continue
            if comm == "nicsim" and b"OMPI_COMM_WORLD_RANK" in env:
                found[int(env[b"OMPI_COMM_WORLD_RANK"])] = c
    return found


def case_signal(nicsim, mpirun, tmp, sig, needle, extra):
    # a run long enough to be interrupted (it is ended long before its end)
    cmd = mpirun_cmd(mpirun, 2) + [nicsim, "--workload", "fft", "--nodes", "4", "--ws-pages", "1024",
                                   "--phases", "50", "--quiet"] + extra
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids, t0 = {}, time.time()
    while len(pids) < 2 and time.time() - t0 < 60 and p.poll() is None:
        time.sleep(0.5)
        pids = rank_pids(p.pid)
    if len(pids) < 2:
        p.kill()
        fail("the two ranks did not start: %s" % pids)
    time.sleep(3)  # well into the run
    if p.poll() is not None:
        fail("the run ended before a rank could be stopped (exit %s)" % p.returncode)
    os.kill(pids[1], sig)
    t1 = time.time()
    try:
        out, err = p.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        p.kill()
        for q in pids.values():
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass
        fail("the job hangs after rank 1 got signal %d" % sig)
    dt = time.time() - t1
    time.sleep(1)
    for q in pids.values():  # nothing left behind (a zombie waiting for its reaper is dead)
        try:
            with open("/proc/%d/stat" % q) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            os.kill(q, signal.SIGKILL)
            fail("rank process %d still alive (state %s) after the job ended" % (q, state))
    if p.returncode == 0:
        fail("exit 0 after rank 1 got signal %d" % sig)
    if needle not in err:
        fail("exit %d after rank 1 got signal %d, but stderr lacks %r:\n%s" % (p.returncode, sig, needle, err))
    line = next(l for l in err.splitlines() if needle in l)
    print("rank 1 got signal %d: job ended with exit %d after %.1f s: %s" % (sig, p.returncode, dt, line))


def case_nicrun(nicrun, mpirun, tmp):
    img = os.path.join(os.path.dirname(nicrun), "..", "fw", "fw_nic_link.img")
    args = [nicrun, "--nodes", "4", "--frames", "60", "--check-link", "--drop", "0.05", "--corrupt", "0.05",
            "--quiet", img]
    outs = []
    for k in (1, 2):
        rc, out, err, _ = run(mpirun_cmd(mpirun, k) + args)
        if rc != 0:
            fail("nicrun, %d ranks: exit %d\n%s%s" % (k, rc, out, err))
        lines = [l for l in out.splitlines() if "simulated cycles/s" not in l]
        if sum("PASS at cycle" in l for l in lines) != 4 or not any("link:" in l for l in lines):
            fail("nicrun, %d ranks: not every node passed, or no link accounting:\n%s" % (k, out))
        if "(quanta, MPI)" not in out:
            fail("nicrun, %d ranks: not run in quanta over MPI:\n%s" % (k, out))
        outs.append(lines)
    if outs[0] != outs[1]:
        fail("nicrun: 1 and 2 ranks differ:\n%s\n---\n%s" % ("\n".join(outs[0]), "\n".join(outs[1])))
    print("nicrun: 1 and 2 ranks: the same %d lines, e.g. %s" % (len(outs[0]), outs[0][0]))


def main():
    nicsim, mpirun, case = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        if case == "identical":
            case_identical(nicsim, mpirun, tmp)
        elif case == "rank_map":
            case_rank_map(nicsim, mpirun, tmp)
        elif case == "too_many":
            case_too_many(nicsim, mpirun, tmp)
        elif case == "mismatch":
            case_mismatch(nicsim, mpirun, tmp)
        elif case == "dies":
            case_signal(nicsim, mpirun, tmp, signal.SIGKILL, "rank 0: stopped by the MPI launcher", [])
        elif case == "hangs":
            case_signal(nicsim, mpirun, tmp, signal.SIGSTOP, "no word from the other ranks for 4 s",
                        ["--mpi-timeout", "4"])
        elif case == "nicrun":
            case_nicrun(nicsim, mpirun, tmp)
        else:
            fail("unknown case " + case)
    print("PASS")


if __name__ == "__main__":
    main()
