#!/usr/bin/env python3
"""Differential test of the NCP's fast paths (issue 11, item 3): runs the same host-native
scenario programs built with NCP_FASTPATH=1 and NCP_FASTPATH=0 (tests/fwhost), each writing a trace of
everything observable at the HAL boundary (FWHOST_TRACE: DMA requests with their host address,
length, direction and data; frames sent, byte for byte; host interrupts, fw_state and timer
programming; completions and events as the host reads them; the STATS block after every scenario),
and fails on the first difference, printing it with the scenario it is in.

usage: diff_paths.py WORKDIR FAST_EXE GENERAL_EXE [FAST_EXE GENERAL_EXE ...]
"""
import os
import subprocess
import sys


def run(exe, trace):
    if os.path.exists(trace):
        os.remove(trace)
    env = dict(os.environ, FWHOST_TRACE=trace)
    p = subprocess.run([exe], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.exit(f"diff_paths: {exe} failed (exit {p.returncode}): the scenarios must pass in both builds")
    with open(trace) as f:
        return f.read().splitlines()


def short(line, n=160):
    return line if len(line) <= n else line[:n] + f"... ({len(line)} chars)"


def compare(fast_exe, gen_exe, workdir):
    name = os.path.basename(fast_exe)
    a = run(fast_exe, os.path.join(workdir, name + ".fast.trace"))
    b = run(gen_exe, os.path.join(workdir, name + ".general.trace"))
    scenario = "(none)"
    for i in range(max(len(a), len(b))):
        la = a[i] if i < len(a) else "<end of trace>"
        lb = b[i] if i < len(b) else "<end of trace>"
        if la.startswith("== "):
            scenario = la[3:]
        if la != lb:
            k = 0
            while k < min(len(la), len(lb)) and la[k] == lb[k]:
                k += 1
            print(f"diff_paths: {name}: first difference at trace line {i + 1}, scenario {scenario}, column {k}:")
            print(f"  NCP_FASTPATH=1: {short(la)}")
            print(f"  NCP_FASTPATH=0: {short(lb)}")
            if k > 80:
                print(f"  from column {k - 20}: fast ...{la[k - 20:k + 60]}")
                print(f"                      general ...{lb[k - 20:k + 60]}")
            return False
    kinds = {}
    for line in a:
        kinds[line.split(" ", 1)[0]] = kinds.get(line.split(" ", 1)[0], 0) + 1
    print(f"diff_paths: {name}: identical, {len(a)} lines in {kinds.get('==', 0)} scenarios "
          f"({kinds.get('dma', 0)} DMA requests, {kinds.get('tx', 0)} frames, {kinds.get('cqe', 0)} completions, "
          f"{kinds.get('event', 0)} events)")
    return True


def main():
    if len(sys.argv) < 4 or len(sys.argv) % 2 != 0:
        sys.exit(__doc__)
    workdir = sys.argv[1]
    os.makedirs(workdir, exist_ok=True)
    ok = True
    for i in range(2, len(sys.argv), 2):
        ok = compare(sys.argv[i], sys.argv[i + 1], workdir) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
