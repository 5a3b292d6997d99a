#!/usr/bin/env python3
"""check_trace.py - nicrun/nicsim --trace-insn (docs/debugging.md).

usage: check_trace.py ELF FUNC STORE_SYM STORE_VAL -- SIMULATOR ARGS...

1. The whole run traced (the simulator gets --trace-insn FILE): the run passes and prints the
   same PASS lines as without the trace; every line has cycle, pc, insn, function+offset and
   disassembly; FUNC appears; a store to STORE_SYM's address of STORE_VAL is listed (PA/store);
   loads are listed with their address; register writes name the register and value; the pc of
   each line lies inside the function it names (per the ELF's symbols).
2. A window around FUNC's first instruction (--trace-from/--trace-to): exactly the lines of the
   full trace within the window.
3. --trace-to not after --trace-from is a setup error (exit 3).
"""
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\s*(\d+) ([0-9a-f]{8}) ([0-9a-f]{8}) (\S+)\s+(.+?)\s*$")


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return r.returncode, r.stdout


def syms(elf):
    out = subprocess.run(["riscv64-unknown-elf-nm", "-S", elf], stdout=subprocess.PIPE, text=True, check=True).stdout
    d = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            d[f[3]] = (int(f[0], 16), int(f[1], 16))
        elif len(f) == 3:
            d.setdefault(f[2], (int(f[0], 16), 0))
    return d


def read(path):
    rows = []
    for line in open(path):
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            sys.exit("malformed trace line: %r" % line)
        rows.append((int(m.group(1)), int(m.group(2), 16), m.group(3), m.group(4), m.group(5), line.rstrip("\n")))
    return rows


def passes(out):
    return sorted(re.findall(r"node \d+: PASS at cycle \d+", out))


def main():
    k = sys.argv.index("--")
    elf, func, store_sym, store_val = sys.argv[1:5]
    sim = sys.argv[k + 1:]
    S = syms(elf)
    tmp = tempfile.mkdtemp()
    full = tmp + "/full.trace"

    rc0, out0 = run(sim)
    rc, out = run(sim + ["--trace-insn", full])
    if rc0 != 0 or rc != 0 or passes(out) != passes(out0) or not passes(out):
        sys.exit("the traced run differs or fails (exit %d / %d):\n%s\n---\n%s" % (rc0, rc, out0, out))
    rows = read(full)
    if len(rows) < 100:
        sys.exit("only %d trace lines" % len(rows))
    cycles = [r[0] for r in rows]
    if cycles != sorted(cycles):
        sys.exit("trace cycles are not in order")
    names = {r[3].split("+")[0] for r in rows}
    if func not in names:
        sys.exit("%s not in the trace (functions seen: %s)" % (func, sorted(names)[:40]))
    # every symbolised pc lies inside the function it names
    for r in rows:
        m = re.match(r"(.+)\+0x([0-9a-f]+)$", r[3])
        if m and m.group(1) in S:
            base, size = S[m.group(1)]
            if r[1] != base + int(m.group(2), 16) or (size and not base <= r[1] < base + size):
                sys.exit("pc outside the function named: " + r[5])
    addr = S[store_sym][0]
    want = "PA:0x%08x store:0x%08x" % (addr, int(store_val, 0))
    if not any(want in r[4] for r in rows):
        sys.exit("no store '%s' (%s) in the trace" % (want, store_sym))
    if not any(re.search(r"\blw \S+, -?\d+\(\S+\)\s+\S+=0x[0-9a-f]{8} PA:0x[0-9a-f]{8} load:0x[0-9a-f]{8}", r[4])
               for r in rows):
        sys.exit("no load with its register, address and data in the trace")
    if not any(re.search(r"^addi \S+, \S+, -?\d+\s+\S+=0x[0-9a-f]{8}", r[4]) for r in rows):
        sys.exit("no register write in the trace")

    first = next(r[0] for r in rows if r[3].startswith(func + "+"))
    lo, hi = first - 50, first + 200
    win = tmp + "/win.trace"
    rc, out = run(sim + ["--trace-insn", win, "--trace-from", str(lo), "--trace-to", str(hi)])
    w = [r[5] for r in read(win)]
    expect = [r[5] for r in rows if lo <= r[0] < hi]
    if rc != 0 or w != expect or not w:
        sys.exit("window [%d, %d): %d lines, the full trace has %d there (exit %d)" % (lo, hi, len(w), len(expect), rc))

    rc, out = run(sim + ["--trace-insn", tmp + "/bad.trace", "--trace-from", "10", "--trace-to", "10"])
    if rc != 3 or "--trace-to must be after --trace-from" not in out:
        sys.exit("an empty window must be refused with exit 3, got %d:\n%s" % (rc, out))
    print("check_trace: %d lines, %s and the store to %s found, window [%d, %d) exact (%d lines): OK"
          % (len(rows), func, store_sym, lo, hi, len(w)))


if __name__ == "__main__":
    main()
