#!/usr/bin/env python3
"""Differential test: our RV32IM core (coresim) against QEMU (the reference).

Role map
  parse_seeds / decode_output  -- CLI seed ranges; console text -> signature words
  Tools                        -- paths and command lines for cc, QEMU, coresim
  SeedRun                      -- one seed: generate, assemble, run, compare
  bisect                       -- on a mismatch, find the first body block whose
                                  execution makes the two models diverge
  main()                       -- progress line per seed, summary, exit status

For each seed the program from gen_program.py is assembled once and run on
both models; their console output (the signature printed as text) must be
identical byte for byte and coresim must exit 0.  QEMU output is also checked
for structure and invariants, so `--self-check` (QEMU only, run twice) is a
real test of the generator and the HTIF protocol, usable before coresim exists.

Exit status: 0 all seeds passed, 1 at least one mismatch/failure, 2 setup error.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_program as gp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LINK_LD = os.path.join(HERE, "link.ld")
ARCH_FLAGS = ["-march=rv32im_zicsr_zifencei_zba_zbb", "-mabi=ilp32", "-nostdlib", "-nostartfiles",
              "-Wl,--no-warn-rwx-segments"]
# QEMU 7.2's default spike CPU (rv32) executes Zba, Zbb, Zbc and Zbs; our core has only Zba and
# Zbb, so the other two are switched off (their words then trap as illegal, as on the core).
QEMU_CPU = "rv32,zba=true,zbb=true,zbc=false,zbs=false"
# Instruction word -> mcause of the exception it raises (what the generator plants).
TRAP_WORDS = {0x00000073: 11,   # ecall from M-mode
              0x00100073: 3,    # ebreak: breakpoint
              0x00000000: 2}    # all-zero word: illegal instruction


def parse_seeds(spec):
    """'A..B' (inclusive), 'N', or a comma list of either."""
    seeds = []
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\.\.(\d+)", part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if b < a:
                raise ValueError("empty seed range %r" % part)
            seeds.extend(range(a, b + 1))
        elif re.fullmatch(r"\d+", part):
            seeds.append(int(part))
        else:
            raise ValueError("bad seed spec %r (want A..B, N or a comma list)" % part)
    return seeds


def decode_output(data, alphabet, nwords):
    """Console bytes -> (list of nwords ints, None) or (None, error)."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None, "output is not ASCII"
    lines = text.split("\n")
    if not lines or lines[0] != gp.HEADER:
        return None, "missing header line %r (got %r)" % (gp.HEADER, lines[0][:40] if lines else "")
    lookup = {c: i for i, c in enumerate(gp.ALPHABETS[alphabet])}
    words = []
    for n, line in enumerate(lines[1:], start=2):
        if line == gp.TRAILER:
            break
        if len(line) != 8 or any(c not in lookup for c in line):
            return None, "line %d: malformed word %r" % (n, line[:40])
        v = 0
        for c in line:
            v = (v << 4) | lookup[c]
        words.append(v)
    else:
        return None, "missing trailer %r after %d words (output truncated?)" % (gp.TRAILER, len(words))
    if len(words) != nwords:
        return None, "expected %d words, got %d" % (nwords, len(words))
    if not text.endswith(gp.TRAILER + "\n") or text.count(gp.TRAILER + "\n") != 1:
        return None, "unexpected bytes after the trailer"
    return words, None


class Tools:
    def __init__(self, args):
        self.cc = args.riscv_cc
        self.qemu = args.qemu
        self.coresim = args.coresim
        self.max_cycles = args.max_cycles
        self.timeout = args.timeout
        self.coresim_args = args.coresim_arg or []
        self.bus = args.bus
        self.signature_channel = args.signature_channel
        self.objdump = self._binutil("objdump")
        self.nm = self._binutil("nm")

    def _binutil(self, name):
        try:
            out = subprocess.run([self.cc, "-print-prog-name=" + name], capture_output=True,
                                 text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        if out and os.path.sep in out:
            return out
        guess = re.sub(r"gcc$", name, self.cc)
        return guess if guess != self.cc else name

    def assemble(self, src, elf):
        cmd = [self.cc] + ARCH_FLAGS + ["-T", LINK_LD, src, "-o", elf]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("assembler failed (%s):\n%s" % (" ".join(cmd), p.stderr))
        return cmd

    def qemu_cmd(self, elf):
        return [self.qemu, "-machine", "spike", "-cpu", QEMU_CPU, "-bios", "none", "-kernel", elf,
                "-display", "none", "-serial", "stdio", "-monitor", "none"]

    def coresim_cmd(self, elf, seed, sigfile=None):
        cmd = [self.coresim, "--max-cycles", str(self.max_cycles)] + bus_args(self.bus, seed) + self.coresim_args
        if sigfile:
            cmd += ["--signature", sigfile]
        return cmd + [elf]

    def run(self, cmd):
        """-> (returncode or 'timeout', stdout bytes, stderr bytes, seconds).

        Output goes to regular files, not pipes: QEMU's HTIF console writes
        without blocking and silently drops characters when a pipe is full
        (seen with 64 KiB of output and a busy reader).
        """
        t0 = time.monotonic()
        with tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
            try:
                rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=fout, stderr=ferr,
                                    timeout=self.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            fout.seek(0)
            ferr.seek(0)
            out, err = fout.read(), ferr.read()
        return rc, out, err, time.monotonic() - t0

    def symbols(self, elf):
        out = subprocess.run([self.nm, elf], capture_output=True, text=True).stdout
        syms = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3:
                syms[f[2]] = int(f[0], 16)
        return syms

    def trap_sites(self, elf):
        """{address: expected mcause} of the planted trapping instructions in .text (-z: objdump
        otherwise collapses consecutive zero words, two planted illegal 0x00000000 in a row, into "...")."""
        out = subprocess.run([self.objdump, "-d", "-z", "-j", ".text", elf], capture_output=True, text=True).stdout
        sites = {}
        for m in re.finditer(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s", out, re.M):
            word = int(m.group(2), 16)
            if word in TRAP_WORDS:
                sites[int(m.group(1), 16)] = TRAP_WORDS[word]
        return sites


def bus_args(mode, seed):
    """coresim bus-timing options for a seed: 'plain' = zero wait states;
    'mix' cycles through zero wait, random stalls, 1 wait state, 2 wait states + random stalls."""
    if mode == "plain":
        return []
    kind = seed % 4
    return [[], ["--rand-stall", str(seed)], ["--wait-states", "1"],
            ["--wait-states", "2", "--rand-stall", str(seed)]][kind]


def fmt_word(v):
    return "0x%08x" % v


def diff_words(ref, got):
    return [(i, a, b) for i, (a, b) in enumerate(zip(ref, got)) if a != b]


class SeedRun:
    """Everything done for one seed; `lines` is the report, `ok` the verdict."""

    def __init__(self, seed, tools, opts, workdir):
        self.seed = seed
        self.tools = tools
        self.opts = opts
        self.dir = os.path.join(workdir, "seed_%d" % seed)
        self.lines = []
        self.ok = False
        self.times = {}

    def log(self, msg):
        self.lines.append(msg)

    def make_gen(self):
        g = gp.ProgramGen(self.seed, self.opts.length, not self.opts.no_traps, self.opts.alphabet)
        g.generate()
        self.gen = g
        return g

    def decode(self, out, truncate=None):
        return decode_output(out, self.opts.alphabet, self.gen.sig_words(truncate))

    def name(self, i, truncate=None):
        return gp.sig_word_name(i, self.gen.trace_entries(truncate))

    def block_code(self, index):
        """Lines of body block `index`, followed by any subroutine it calls."""
        lines = list(self.gen.blocks[index])
        for label in re.findall(r"\.Lsub_\d+", "\n".join(lines)):
            for body in self.gen.subs:
                if body[0] == label + ":":
                    lines += ["  (called)"] + body
        return lines

    def log_diffs(self, diffs, limit, prefix="    ", truncate=None):
        for i, a, b in diffs[:limit]:
            self.log("%s%-30s qemu=%s coresim=%s" % (prefix, self.name(i, truncate), fmt_word(a), fmt_word(b)))
        if len(diffs) > limit:
            self.log("%s... %d differing words in all" % (prefix, len(diffs)))

    def build(self, gen, truncate=None, tag="prog"):
        os.makedirs(self.dir, exist_ok=True)
        src = os.path.join(self.dir, tag + ".S")
        elf = os.path.join(self.dir, tag + ".elf")
        with open(src, "w") as f:
            f.write(gen.render(truncate))
        self.tools.assemble(src, elf)
        return elf

    def run_qemu(self, elf):
        rc, out, err, dt = self.tools.run(self.tools.qemu_cmd(elf))
        self.times["qemu"] = self.times.get("qemu", 0) + dt
        return rc, out, err

    def run_coresim(self, elf, sigfile=None):
        rc, out, err, dt = self.tools.run(self.tools.coresim_cmd(elf, self.seed, sigfile))
        self.times["coresim"] = self.times.get("coresim", 0) + dt
        return rc, out, err

    def check_reference(self, elf, rc, out, err):
        """Validate QEMU's run: exit 0, well-formed output, invariants hold."""
        if rc != 0:
            self.log("  QEMU failed: exit %s\n  stderr: %s" % (rc, err.decode(errors="replace").strip()[-500:]))
            return None
        words, why = self.decode(out)
        if words is None:
            self.log("  QEMU output malformed: %s" % why)
            return None
        syms = self.tools.symbols(elf)
        problems = []
        gp_reg = words[gp.SIG_REGS + gp.BASE_REG - 1]
        if "scratch" in syms and gp_reg != syms["scratch"] + gp.SCRATCH_BIAS:
            problems.append("gp=%s, expected scratch+%d=%s" % (fmt_word(gp_reg), gp.SCRATCH_BIAS,
                                                              fmt_word(syms["scratch"] + gp.SCRATCH_BIAS)))
        tp_reg = words[gp.SIG_REGS + gp.LOOP_REG - 1]
        if tp_reg != 0:
            problems.append("tp (loop counter) = %s at exit, expected 0" % fmt_word(tp_reg))
        sites = self.tools.trap_sites(elf)
        count = words[gp.SIG_TRAP_COUNT]
        for k in range(min(count, gp.TRAP_LOG_ENTRIES)):
            cause = words[gp.SIG_TRAP_LOG + 2 * k]
            epc = words[gp.SIG_TRAP_LOG + 2 * k + 1]
            if sites.get(epc) != cause:
                problems.append("trap[%d]: mcause=%d mepc=%s is not a planted trap" % (k, cause, fmt_word(epc)))
        if self.opts.no_traps and count:
            problems.append("trap_count=%d in a program without ecall" % count)
        for p in problems:
            self.log("  QEMU invariant violated: " + p)
        return None if problems else words

    def execute(self):
        t0 = time.monotonic()
        try:
            self.ok = self._execute()
        except Exception as e:  # report, keep going with other seeds
            self.log("  error: %s" % e)
            self.ok = False
        self.times["total"] = time.monotonic() - t0
        return self

    def _execute(self):
        gen = self.make_gen()
        self.nblocks = len(gen.blocks)
        elf = self.build(gen)
        rc, qout, qerr = self.run_qemu(elf)
        ref = self.check_reference(elf, rc, qout, qerr)
        if ref is None:
            self.log("  (reference run is bad: generator/QEMU problem, not a core bug)")
            return False
        with open(os.path.join(self.dir, "qemu.out"), "wb") as f:
            f.write(qout)
        if self.opts.self_check:
            rc2, qout2, _ = self.run_qemu(elf)
            if rc2 != 0 or qout2 != qout:
                self.log("  QEMU is not deterministic on this program (exit %s)" % rc2)
                return False
            self.trap_count = ref[gp.SIG_TRAP_COUNT]
            return True
        sigfile = os.path.join(self.dir, "coresim.sig") if self.tools.signature_channel else None
        rc, cout, cerr = self.run_coresim(elf, sigfile)
        with open(os.path.join(self.dir, "coresim.out"), "wb") as f:
            f.write(cout)
        with open(os.path.join(self.dir, "coresim.err"), "wb") as f:
            f.write(cerr)
        if rc == 0 and cout == qout and self.check_signature_file(sigfile, ref):
            self.trap_count = ref[gp.SIG_TRAP_COUNT]
            return True
        self.disassemble(elf)
        self.report_mismatch(elf, ref, rc, cout, cerr)
        if self.opts.bisect:
            self.bisect(gen)
        self.log("  files: %s (prog.S, prog.dis, prog.elf, qemu.out, coresim.out, coresim.err)" % self.dir)
        self.log("  coresim alone: %s" % " ".join(self.tools.coresim_cmd(elf, self.seed)))
        self.log("  rerun: %s" % self.repro_hint())
        return False

    def disassemble(self, elf):
        out = subprocess.run([self.tools.objdump, "-d", elf], capture_output=True, text=True).stdout
        with open(os.path.join(self.dir, "prog.dis"), "w") as f:
            f.write(out)

    def check_signature_file(self, sigfile, ref):
        if not sigfile:
            return True
        try:
            with open(sigfile) as f:
                vals = [int(t, 16) for t in f.read().split()]
        except (OSError, ValueError) as e:
            self.log("  coresim signature file unreadable: %s" % e)
            return False
        if vals != ref:
            self.log("  coresim --signature differs from QEMU's printed signature")
            if len(vals) != len(ref):
                self.log("    %d words in the file, %d expected" % (len(vals), len(ref)))
            self.log_diffs(diff_words(ref, vals), 8)
            return False
        return True

    def report_mismatch(self, elf, ref, rc, cout, cerr):
        if rc != 0:
            self.log("  coresim exit status %s (expected 0 = HTIF pass)" % rc)
            tail = cerr.decode(errors="replace").strip().splitlines()[-6:]
            for t in tail:
                self.log("    coresim stderr: " + t)
        got, why = self.decode(cout)
        if got is None:
            self.log("  coresim output unusable: %s" % why)
            qref = self.qref_bytes()
            n = next((i for i, (a, b) in enumerate(zip(qref, cout)) if a != b), min(len(qref), len(cout)))
            self.log("  first differing byte at offset %d (line %d); coresim printed %d bytes, QEMU %d"
                     % (n, qref[:n].count(b"\n") + 1, len(cout), len(qref)))
            return
        diffs = diff_words(ref, got)
        if not diffs:
            self.log("  printed signatures decode equal but bytes differ")
            return
        traced = [d for d in diffs if d[0] >= gp.SIG_TRACE]
        if traced:
            i, a, b = traced[0]
            block, reg = self.gen.trace_entries()[i - gp.SIG_TRACE]
            self.log("  earliest traced difference: %s after block %d  qemu=%s coresim=%s"
                     % (gp.ABI[reg], block, fmt_word(a), fmt_word(b)))
            for l in self.block_code(block):
                self.log("      " + l)
        final = [d for d in diffs if d[0] < gp.SIG_TRACE]
        self.log("  final state: %d differing words, trace: %d differing entries" % (len(final), len(traced)))
        self.log_diffs(final, 12)

    def qref_bytes(self):
        with open(os.path.join(self.dir, "qemu.out"), "rb") as f:
            return f.read()

    def compare_truncated(self, gen, k):
        """-> (same?, qemu words, coresim words or None) for the first k blocks."""
        elf = self.build(gen, truncate=k, tag="bisect")
        rc, qout, _ = self.run_qemu(elf)
        ref, _ = self.decode(qout, k) if rc == 0 else (None, None)
        crc, cout, _ = self.run_coresim(elf)
        got, _ = self.decode(cout, k)
        return crc == 0 and cout == qout, ref, got

    def bisect(self, gen):
        """Smallest k such that the first k blocks already diverge; block k-1 is the culprit."""
        n = len(gen.blocks)
        same0, ref0, got0 = self.compare_truncated(gen, 0)
        if not same0:
            self.log("  bisect: diverges even with an empty body -> prologue (li/la/csrw), "
                     "dump (sw) or print loop (srli/add/lbu/slli/bnez/bltu) or HTIF")
            if ref0 and got0:
                self.log_diffs(diff_words(ref0, got0), 6, truncate=0)
            return
        lo, hi = 0, n          # lo: same, hi: differs (full program)
        before = ref0
        while hi - lo > 1:
            mid = (lo + hi) // 2
            same, ref, _ = self.compare_truncated(gen, mid)
            if same:
                lo, before = mid, ref
            else:
                hi = mid
        same, ref, got = self.compare_truncated(gen, hi)
        if same:
            self.log("  bisect: no divergence with %d blocks (needs the whole program?)" % hi)
            return
        block = self.block_code(hi - 1)
        self.log("  bisect: first diverging block is #%d of %d (prefix of %d blocks matches):" % (hi - 1, n, lo))
        for l in block:
            self.log("      " + l)
        used = set()
        for l in block:
            if l.endswith(":"):
                continue
            for tok in re.findall(r"[a-z][a-z0-9]*", l.split(None, 1)[1] if " " in l else ""):
                if tok in gp.ABI:
                    used.add(gp.ABI.index(tok))
        if before:
            regs = ", ".join("%s=%s" % (gp.ABI[r], fmt_word(before[r - 1])) for r in sorted(used) if r)
            self.log("    registers before the block (QEMU): " + regs)
        if ref and got:
            self.log("    after the block:")
            self.log_diffs(diff_words(ref, got), 8, prefix="      ", truncate=hi)
        self.log("    files: %s/bisect.S (first %d blocks; the last one is the culprit)" % (self.dir, hi))
        # Leave the culprit program on disk for the core developer.
        self.build(gen, truncate=hi, tag="bisect")

    def repro_hint(self):
        t = self.tools
        cmd = [sys.executable, os.path.abspath(__file__), "--coresim", t.coresim, "--riscv-cc", t.cc,
               "--qemu", t.qemu, "--seeds", str(self.seed), "--max-cycles", str(t.max_cycles),
               "--workdir", os.path.dirname(self.dir), "--keep"]
        if self.opts.no_traps:
            cmd.append("--no-traps")
        if self.opts.length != 2000:
            cmd += ["--length", str(self.opts.length)]
        if self.opts.alphabet != "even":
            cmd += ["--alphabet", self.opts.alphabet]
        if t.bus != "plain":
            cmd += ["--bus", t.bus]
        cmd += ["--coresim-arg=" + a for a in t.coresim_args]
        return " ".join(cmd)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Differential test of coresim against QEMU.")
    ap.add_argument("--coresim", help="path to the coresim executable")
    ap.add_argument("--riscv-cc", default="riscv64-unknown-elf-gcc", help="RISC-V cross gcc")
    ap.add_argument("--qemu", default="qemu-system-riscv32", help="qemu-system-riscv32")
    ap.add_argument("--seeds", default="1..40", help="A..B inclusive, N, or comma list (default 1..40)")
    ap.add_argument("--workdir", help="where per-seed files go (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep files of passing seeds too")
    ap.add_argument("--self-check", action="store_true",
                    help="QEMU only: run each program twice and check the output's structure/invariants")
    ap.add_argument("--length", type=int, default=2000, help="generator body length (instructions)")
    ap.add_argument("--no-traps", action="store_true", help="generate programs without ecall")
    ap.add_argument("--alphabet", choices=sorted(gp.ALPHABETS), default="even")
    ap.add_argument("--max-cycles", type=int, default=None,
                    help="coresim cycle budget (default: 1000 x --length, at least 2,000,000; a "
                         "2000-instruction program needs ~150 k cycles at zero wait, ~500 k at 2 wait states)")
    ap.add_argument("--bus", choices=["plain", "mix"], default="plain",
                    help="coresim bus timing: plain (zero wait) or mix (per seed: plain, "
                         "--rand-stall, --wait-states 1, --wait-states 2 + --rand-stall)")
    ap.add_argument("--timeout", type=float, default=60.0, help="wall-clock limit per simulator run (s)")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="seeds run in parallel")
    ap.add_argument("--no-bisect", dest="bisect", action="store_false",
                    help="do not bisect a mismatch to the first diverging block")
    ap.add_argument("--max-bisect", type=int, default=3, help="bisect at most this many failing seeds")
    ap.add_argument("--fail-fast", action="store_true", help="stop at the first failing seed")
    ap.add_argument("--coresim-arg", action="append", help="extra argument for coresim (repeatable)")
    ap.add_argument("--signature-channel", action="store_true",
                    help="also pass --signature FILE to coresim and compare that file")
    args = ap.parse_args(argv)

    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as e:
        ap.error(str(e))
    if not args.self_check and not args.coresim:
        ap.error("--coresim is required unless --self-check is given")
    for tool in [args.riscv_cc, args.qemu] + ([] if args.self_check else [args.coresim]):
        if not shutil.which(tool):
            print("difftest: tool not found or not executable: %s" % tool, file=sys.stderr)
            return 2

    if args.max_cycles is None:
        args.max_cycles = max(2000000, 1000 * args.length)
    tools = Tools(args)
    tmp = None
    if args.workdir:
        workdir = os.path.abspath(args.workdir)
        os.makedirs(workdir, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="difftest-")
        workdir = tmp

    mode = "self-check (QEMU only)" if args.self_check else "coresim vs QEMU"
    print("difftest: %s, %d seeds (%s), length %d, traps %s, bus %s, workdir %s"
          % (mode, len(seeds), args.seeds, args.length, "off" if args.no_traps else "on",
             args.bus, workdir), flush=True)

    bisect_budget = [args.max_bisect]
    lock = threading.Lock()
    failed = []
    done = [0]
    stop = threading.Event()
    t_start = time.monotonic()

    def one(seed):
        if stop.is_set():
            return None
        opts = argparse.Namespace(**vars(args))
        with lock:
            opts.bisect = args.bisect and bisect_budget[0] > 0
        run = SeedRun(seed, tools, opts, workdir)
        run.execute()
        with lock:
            if not run.ok and opts.bisect:
                bisect_budget[0] -= 1
            done[0] += 1
            t = run.times
            timing = "qemu %.2fs" % t.get("qemu", 0)
            if "coresim" in t:
                timing += ", coresim %.2fs" % t["coresim"]
                if args.bus != "plain":
                    timing += " " + (" ".join(bus_args(args.bus, seed)) or "zero-wait")
            verdict = "PASS" if run.ok else "FAIL"
            extra = ""
            if run.ok:
                extra = ", %d blocks, %d traps" % (run.nblocks, run.trap_count)
            print("[%*d/%d] seed %d: %s (%s%s)" % (len(str(len(seeds))), done[0], len(seeds), seed,
                                                  verdict, timing, extra), flush=True)
            for l in run.lines:
                print(l, flush=True)
            if run.ok:
                if not args.keep:
                    shutil.rmtree(run.dir, ignore_errors=True)
            else:
                failed.append(seed)
                if args.fail_fast:
                    stop.set()
        return run

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        list(ex.map(one, seeds))

    elapsed = time.monotonic() - t_start
    print("difftest: %d/%d seeds passed, %d failed, %.1f s%s"
          % (done[0] - len(failed), len(seeds), len(failed), elapsed,
             (": failing seeds " + ",".join(map(str, sorted(failed)))) if failed else ""), flush=True)
    if tmp and not failed and not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    elif failed:
        print("difftest: files of failing seeds kept under %s" % workdir, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
