#!/usr/bin/env python3
"""Random RV32IM + Zba + Zbb program generator for the core-vs-QEMU differential test.

Role map
  layout constants  -- signature layout shared with run_difftest.py (word names)
  ProgramGen        -- builds one program from a seed: prologue, a list of
                       self-contained main-body blocks, subroutines, trap
                       handler, dump + print epilogue, data
  main()            -- CLI: gen_program.py SEED OUT.S [options]

Every program is deterministic for a given (seed, options) and always
terminates: branches, jal and jalr only go forward to labels inside the
program, except the back edge of a bounded loop whose counter lives in a
reserved register (tp) that nothing else writes; subroutines are leaf code
called once.  Memory accesses are aligned and stay inside a 256-byte scratch
area addressed from a reserved base register (gp).

Zba and Zbb (ratified 1.0, RV32 encodings) are generated on their own (g_zb,
with corner operands) and mixed into the ALU groups, load-use pairs and
dependent chains.  Zbs and Zbc are never generated: the assembler is run
without them (run_difftest.ARCH_FLAGS), so no such word can appear, and QEMU
is started with them disabled (run_difftest.QEMU_CPU).

At the end the program stores x1..x31 and mscratch into the signature region
(begin_signature..end_signature, which also holds the trap log and the scratch
area), prints the whole region as text over the HTIF console and exits with
code 0 through HTIF.

HTIF protocol (see docs/difftest.md for the experiments behind it):
  putchar: sw char -> tohost[31:0], then sw 0x01010000 -> tohost[63:32]
  exit:    sw 1    -> tohost[31:0], then sw 0          -> tohost[63:32]
QEMU 7.2 acts on the high-word store and needs both `tohost` and `fromhost`
symbols (8 bytes each); coresim acts on an odd low word (exit) or on the high
word 0x01010000 (putchar).  Because an odd low word means "exit" to coresim,
the default console alphabet uses only even character codes (see ALPHABETS).
"""

import argparse
import random
import sys

GENERATOR_VERSION = 2   # 2: Zba/Zbb added to the mix (programs of every seed changed)

ABI = ["zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1",
       "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
       "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
       "t3", "t4", "t5", "t6"]

BASE_REG = 3     # gp: scratch base (scratch + SCRATCH_BIAS), never written by random code
LOOP_REG = 4     # tp: loop counter, written only by loop blocks
TRACE_REG = 27   # s11: trace buffer pointer, written only by the trace stores
RESERVED = (0, BASE_REG, LOOP_REG, TRACE_REG)
TRACE_MAX_REGS = 3   # destinations recorded per block
WRITABLE = [r for r in range(32) if r not in RESERVED]

# --- signature layout (words), shared with run_difftest.py -------------------
SIG_REGS = 0            # x1..x31
NUM_REGS = 31
SIG_MSCRATCH = 31
SIG_TRAP_COUNT = 32
TRAP_LOG_ENTRIES = 8    # (mcause, mepc) pairs; later traps are only counted
SIG_TRAP_LOG = 33
SIG_SCRATCH = SIG_TRAP_LOG + 2 * TRAP_LOG_ENTRIES      # 49
SCRATCH_BYTES = 256
SCRATCH_WORDS = SCRATCH_BYTES // 4
SIG_TRACE = SIG_SCRATCH + SCRATCH_WORDS                # 113, trace follows
SCRATCH_BIAS = SCRATCH_BYTES // 2   # gp = scratch + 128, offsets -128..127
TRAP_SAVE_BYTES = 16                # handler save area, just below begin_signature

HEADER = "DT"
TRAILER = "ZZ"
# Console alphabets, indexed by nibble value.  "even" uses only even byte
# values so that no putchar ever stores an odd low word (coresim's exit rule).
ALPHABETS = {
    "even": "02468BDFHJLNPRTV",
    "hex": "0123456789abcdef",
}


def sig_word_name(i, trace=None):
    """Human-readable name of signature word i; trace = ProgramGen.trace_entries()."""
    if SIG_REGS <= i < SIG_REGS + NUM_REGS:
        r = i - SIG_REGS + 1
        return "x%d/%s" % (r, ABI[r])
    if i == SIG_MSCRATCH:
        return "mscratch"
    if i == SIG_TRAP_COUNT:
        return "trap_count"
    if SIG_TRAP_LOG <= i < SIG_SCRATCH:
        k, which = divmod(i - SIG_TRAP_LOG, 2)
        return "trap[%d].%s" % (k, "mepc" if which else "mcause")
    if SIG_SCRATCH <= i < SIG_TRACE:
        off = (i - SIG_SCRATCH) * 4 - SCRATCH_BIAS
        return "scratch[gp%+d]" % off
    if trace is not None and SIG_TRACE <= i < SIG_TRACE + len(trace):
        block, reg = trace[i - SIG_TRACE]
        return "trace[%d] (%s after block %d)" % (i - SIG_TRACE, ABI[reg], block)
    return "word%d" % i


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


CORNERS = [0, 1, -1, 0x80000000, 0x7FFFFFFF, 2, -2, 0x80000001, 0xFFFF,
           0x8000, 0x7FFF, 0x10000, 31, 32, 0xFFFFFFE0, 0xFFFFFFFF80000000 & 0xFFFFFFFF,
           0x55555555, 0xAAAAAAAA]

ALU_RR = ["add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and"]
ALU_RI = ["addi", "slti", "sltiu", "xori", "ori", "andi"]
SHIFT_I = ["slli", "srli", "srai"]
# Zba + Zbb.  Register/register (rol/ror use only rs2[4:0]), unary (rd, rs1), and rori.
ZB_RR = ["sh1add", "sh2add", "sh3add", "andn", "orn", "xnor",
         "min", "max", "minu", "maxu", "rol", "ror"]
ZB_UNARY = ["clz", "ctz", "cpop", "sext.b", "sext.h", "zext.h", "orc.b", "rev8"]
ZB_ROT = ("rol", "ror")
# Register rotate amounts: 0, 31, and values whose upper bits must be ignored.
ZB_ROT_AMOUNTS = [0, 31, 1, 16, 32, 63, 0xFFFFFFE0, 0xFFFFFFFF, 0x8000001F, 0x80000000]
MULDIV = ["mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"]
BRANCHES = ["beq", "bne", "blt", "bge", "bltu", "bgeu"]
LOADS = [("lw", 4), ("lh", 2), ("lhu", 2), ("lb", 1), ("lbu", 1)]
STORES = [("sw", 4), ("sh", 2), ("sb", 1)]


class ProgramGen:
    def __init__(self, seed, length=2000, traps=True, alphabet="even"):
        self.seed = seed
        self.rng = random.Random(seed)
        self.length = length
        self.traps = traps
        self.alphabet = alphabet
        self.label_no = 0
        self.last_dst = None     # for dependent chains
        self.subs = []           # list of line lists, emitted after the body
        self.blocks = []         # main body: list of line lists
        self.block_dsts = set()  # registers written by the block being built
        self.traced = []         # per block: registers stored to the trace after it

    # --- helpers -----------------------------------------------------------
    def label(self, kind):
        self.label_no += 1
        return ".L%s_%d" % (kind, self.label_no)

    def rand32(self):
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice(CORNERS) & 0xFFFFFFFF
        if r < 0.55:
            return self.rng.randint(-64, 64) & 0xFFFFFFFF
        return self.rng.getrandbits(32)

    def imm12(self):
        r = self.rng.random()
        if r < 0.2:
            return self.rng.choice([0, 1, -1, 2047, -2048, 2046, -2047])
        if r < 0.6:
            return self.rng.randint(-32, 32)
        return self.rng.randint(-2048, 2047)

    def shamt(self):
        r = self.rng.random()
        if r < 0.35:
            return self.rng.choice([0, 31, 1, 30, 16])
        return self.rng.randint(0, 31)

    def zb_value(self, op=None):
        """An operand for a Zba/Zbb op: corners, one bit set/clear, byte and
        half-word boundaries with junk above them, bit masks, random."""
        rng = self.rng
        r = rng.random()
        if op in ("sext.b", "sext.h", "zext.h") and r < 0.5:
            # Boundary value in the low byte/half, random bits above it.
            low = rng.choice([0, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x807F, 0x7F80])
            junk = rng.choice([0, 0xFFFFFFFF, rng.getrandbits(32)])
            width = 0xFF if op == "sext.b" else 0xFFFF
            return ((junk & ~width) | (low & width)) & 0xFFFFFFFF
        if op == "orc.b" and r < 0.5:
            # Bytes that are zero, one bit, all ones or random.
            v = 0
            for _ in range(4):
                v = (v << 8) | rng.choice([0, 0, 0x01, 0x80, 0xFF, rng.getrandbits(8)])
            return v
        if r < 0.3:
            return rng.choice([0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 1, 0xFFFFFFFE,
                               0x80000001, 0x40000000, 0x20000000, 0x1FFFFFFF, 0xE0000000,
                               0xFF, 0x80, 0x7F, 0xFFFF, 0x8000, 0x7FFF, 0xFF00FF00,
                               0x00FF00FF, 0x80808080, 0x01010101, 0x7F7F7F7F, 0x55555555,
                               0xAAAAAAAA, 0x12345678])
        if r < 0.5:
            bit = 1 << rng.randrange(32)                 # one bit set, or all but one
            return bit if rng.random() < 0.7 else bit ^ 0xFFFFFFFF
        if r < 0.6:
            k = rng.randint(1, 31)                       # contiguous masks: clz/ctz edges
            m = (1 << k) - 1
            return m if rng.random() < 0.5 else (m << (32 - k)) & 0xFFFFFFFF
        if r < 0.7:
            return rng.randint(-64, 64) & 0xFFFFFFFF
        return rng.getrandbits(32)

    def dst(self, forbid=()):
        if self.rng.random() < 0.03 and 0 not in forbid:
            return 0
        while True:
            r = self.rng.choice(WRITABLE)
            if r not in forbid:
                self.last_dst = r
                self.block_dsts.add(r)
                return r

    def src(self):
        if self.last_dst is not None and self.rng.random() < 0.45:
            return self.last_dst
        return self.rng.randrange(32)

    @staticmethod
    def r(n):
        return ABI[n]

    # --- simple instruction groups (no labels, straight-line) ----------------
    def g_alu_rr(self, forbid):
        rs1, rs2 = self.src(), self.src()
        rd = self.dst(forbid)
        ops = ZB_RR if self.rng.random() < 0.2 else ALU_RR
        return ["%s %s, %s, %s" % (self.rng.choice(ops), self.r(rd), self.r(rs1), self.r(rs2))]

    def g_alu_ri(self, forbid):
        rs1 = self.src()
        rd = self.dst(forbid)
        r = self.rng.random()
        if r < 0.12:
            return ["%s %s, %s" % (self.rng.choice(ZB_UNARY), self.r(rd), self.r(rs1))]
        if r < 0.2:
            return ["rori %s, %s, %d" % (self.r(rd), self.r(rs1), self.shamt())]
        if r < 0.48:
            return ["%s %s, %s, %d" % (self.rng.choice(SHIFT_I), self.r(rd), self.r(rs1), self.shamt())]
        return ["%s %s, %s, %d" % (self.rng.choice(ALU_RI), self.r(rd), self.r(rs1), self.imm12())]

    def g_upper(self, forbid):
        rd = self.dst(forbid)
        op = self.rng.choice(["lui", "auipc"])
        imm = self.rng.choice([0, 1, 0x80000, 0xFFFFF, 0x7FFFF, self.rng.getrandbits(20)])
        return ["%s %s, 0x%x" % (op, self.r(rd), imm)]

    def g_li(self, forbid):
        rd = self.dst(forbid)
        return ["li %s, %d" % (self.r(rd), s32(self.rand32()))]

    def g_shift_corner(self, forbid):
        """Register shifts whose amount register has interesting low 5 bits."""
        ra = self.dst(forbid)
        amt = self.rng.choice([0, 31, 32, 63, 0xFFFFFFE0, 0xFFFFFFFF, 1, 0x8000001F])
        rs1 = self.src()
        rd = self.dst(forbid)
        op = self.rng.choice(["sll", "srl", "sra", "rol", "ror"])
        return ["li %s, %d" % (self.r(ra), s32(amt)),
                "%s %s, %s, %s" % (op, self.r(rd), self.r(rs1), self.r(ra))]

    def g_muldiv(self, forbid):
        lines = []
        op = self.rng.choice(MULDIV)
        r = self.rng.random()
        if r < 0.55:
            # Inject corner operands into fresh registers.
            a = self.dst(forbid)
            b = self.dst(forbid)
            pair = self.rng.random()
            if pair < 0.15:
                va, vb = 0x80000000, 0xFFFFFFFF          # overflow case
            elif pair < 0.3:
                va, vb = self.rand32(), 0                # divide by zero
            else:
                va, vb = self.rand32(), self.rand32()
            lines.append("li %s, %d" % (self.r(a), s32(va)))
            if b == a and a != 0:
                vb = va
            lines.append("li %s, %d" % (self.r(b), s32(vb)))
            rs1, rs2 = a, b
            if self.rng.random() < 0.1:
                rs2 = rs1
        else:
            rs1, rs2 = self.src(), self.src()
        rd = self.dst(forbid)
        if self.rng.random() < 0.2 and rs1 not in RESERVED and rs1 not in forbid:
            rd = rs1   # destination overwrites a source
            self.last_dst = rd
            self.block_dsts.add(rd)
        lines.append("%s %s, %s, %s" % (op, self.r(rd), self.r(rs1), self.r(rs2)))
        return lines

    def g_zb(self, forbid):
        """Zba/Zbb: register/register, unary and rori, corner operands injected
        into fresh registers about half the time (rotate amounts 0/31/junk upper
        bits, min/max on equal, adjacent and sign-differing pairs), rd equal to
        a source, rs1 == rs2."""
        rng = self.rng
        lines = []
        k = rng.random()
        op = rng.choice(ZB_RR) if k < 0.55 else rng.choice(ZB_UNARY) if k < 0.85 else "rori"
        if rng.random() < 0.55:
            a = self.dst(forbid | {0})
            va = self.zb_value(op)
            lines.append("li %s, %d" % (self.r(a), s32(va)))
            rs1 = a
            if op in ZB_RR:
                if rng.random() < 0.12:
                    rs2 = a                                   # rs1 == rs2
                elif rng.random() < 0.25:
                    rs2 = self.src()
                else:
                    b = self.dst(forbid | {0})
                    if op in ZB_ROT:
                        vb = rng.choice(ZB_ROT_AMOUNTS + [rng.randrange(32), rng.getrandbits(32)])
                    elif op in ("min", "max", "minu", "maxu") and rng.random() < 0.5:
                        # Equal, adjacent, or the same magnitude with the other sign.
                        vb = rng.choice([va, va + 1, va - 1, va ^ 0x80000000, va ^ 0xFFFFFFFF]) & 0xFFFFFFFF
                    else:
                        vb = self.zb_value(op)
                    if b == a:
                        vb = va
                    lines.append("li %s, %d" % (self.r(b), s32(vb)))
                    rs2 = b
                if rng.random() < 0.5:
                    rs1, rs2 = rs2, rs1
        else:
            rs1, rs2 = self.src(), self.src()
        rd = self.dst(forbid)
        if rng.random() < 0.2 and rs1 not in RESERVED and rs1 not in forbid:
            rd = rs1   # destination overwrites a source
            self.last_dst = rd
            self.block_dsts.add(rd)
        if op == "rori":
            amt = rng.choice([0, 31, rng.randrange(32)]) if rng.random() < 0.5 else self.shamt()
            lines.append("rori %s, %s, %d" % (self.r(rd), self.r(rs1), amt))
        elif op in ZB_UNARY:
            lines.append("%s %s, %s" % (op, self.r(rd), self.r(rs1)))
        else:
            lines.append("%s %s, %s, %s" % (op, self.r(rd), self.r(rs1), self.r(rs2)))
        return lines

    def g_chain(self, forbid):
        """A run of ops each consuming the previous result immediately."""
        lines = []
        prev = self.src()
        for _ in range(self.rng.randint(3, 6)):
            rd = self.dst(forbid)
            other = self.src() if self.rng.random() < 0.5 else prev
            kind = self.rng.random()
            if kind < 0.35:
                op = self.rng.choice(MULDIV)
            elif kind < 0.65:
                op = self.rng.choice(ALU_RR)
            elif kind < 0.8:
                op = self.rng.choice(ZB_RR)
            else:
                op = None
            if op is None:
                k = self.rng.random()
                if k < 0.4:
                    lines.append("%s %s, %s" % (self.rng.choice(ZB_UNARY), self.r(rd), self.r(prev)))
                elif k < 0.55:
                    lines.append("rori %s, %s, %d" % (self.r(rd), self.r(prev), self.shamt()))
                else:
                    lines.append("%s %s, %s, %d" % (self.rng.choice(ALU_RI), self.r(rd), self.r(prev), self.imm12()))
            elif self.rng.random() < 0.5:
                lines.append("%s %s, %s, %s" % (op, self.r(rd), self.r(prev), self.r(other)))
            else:
                lines.append("%s %s, %s, %s" % (op, self.r(rd), self.r(other), self.r(prev)))
            if rd != 0:
                prev = rd
        return lines

    def mem_addr(self, width):
        """Aligned offset from gp inside the scratch area."""
        if self.rng.random() < 0.5:
            # Favour a few hot words so stores and loads collide.
            base = self.rng.choice([-128, -4, 0, 4, 64, 124 - 4 * self.rng.randint(0, 3)])
        else:
            base = -SCRATCH_BIAS + 4 * self.rng.randrange(SCRATCH_WORDS)
        return base + width * self.rng.randrange(4 // width)

    def addr_operand(self, width, forbid, lines):
        """Pick an aligned scratch address, maybe through a derived base register.

        Returns (base_reg, bias, addr) meaning the access is bias+addr_off(base_reg)
        where base_reg = gp + bias; addr is the gp-relative address, or None
        when it depends on data (then only its alignment is known).
        """
        addr = self.mem_addr(width)
        r = self.rng.random()
        if r < 0.6:
            return BASE_REG, 0, addr
        rb = self.dst(forbid | {0})
        if r < 0.85:
            d = self.rng.randint(-128, 127)
            lines.append("addi %s, %s, %d" % (self.r(rb), self.r(BASE_REG), d))
            return rb, d, addr
        # Data-dependent index: rb = gp + (rX & mask), mask keeps alignment.
        mask = {4: 0x7C, 2: 0x7E, 1: 0x7F}[width]
        lines.append("andi %s, %s, %d" % (self.r(rb), self.r(self.src()), mask))
        lines.append("add %s, %s, %s" % (self.r(rb), self.r(rb), self.r(BASE_REG)))
        return rb, None, self.rng.choice([-128, 0])

    def access(self, op, data_reg, base, bias, addr):
        off = addr if bias is None else addr - bias
        return "%s %s, %d(%s)" % (op, self.r(data_reg), off, self.r(base))

    def g_load(self, forbid):
        lines = []
        op, w = self.rng.choice(LOADS)
        base, bias, addr = self.addr_operand(w, set(forbid), lines)
        rd = self.dst(forbid)
        lines.append(self.access(op, rd, base, bias, addr))
        if self.rng.random() < 0.5 and rd != 0:
            # Load-use: consume the loaded value in the very next instruction.
            rd2 = self.dst(forbid)
            k = self.rng.random()
            if k < 0.3:
                lines.append("%s %s, %s, %s" % (self.rng.choice(MULDIV), self.r(rd2), self.r(rd), self.r(self.src())))
            elif k < 0.42:
                lines.append("%s %s, %s" % (self.rng.choice(ZB_UNARY), self.r(rd2), self.r(rd)))
            elif k < 0.5:
                lines.append("%s %s, %s, %s" % (self.rng.choice(ZB_RR), self.r(rd2), self.r(self.src()), self.r(rd)))
            else:
                lines.append("%s %s, %s, %s" % (self.rng.choice(ALU_RR), self.r(rd2), self.r(self.src()), self.r(rd)))
        return lines

    def g_store(self, forbid):
        lines = []
        op, w = self.rng.choice(STORES)
        base, bias, addr = self.addr_operand(w, set(forbid), lines)
        lines.append(self.access(op, self.src(), base, bias, addr))
        if self.rng.random() < 0.4 and bias is not None and base not in forbid:
            # Read back at once, possibly with another width/extension
            # (rounded down to that width's alignment, still in the area).
            lop, lw_ = self.rng.choice(LOADS)
            rd = self.dst(forbid)
            lines.append(self.access(lop, rd, base, bias, addr - (addr % lw_)))
        return lines

    def g_csr(self, forbid):
        rd = self.dst(forbid)
        op = self.rng.choice(["csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci", "csrr", "csrw"])
        if op == "csrr":
            return ["csrr %s, mscratch" % self.r(rd)]
        if op == "csrw":
            return ["csrw mscratch, %s" % self.r(self.src())]
        if op.endswith("i"):
            return ["%s %s, mscratch, %d" % (op, self.r(rd), self.rng.randint(0, 31))]
        return ["%s %s, mscratch, %s" % (op, self.r(rd), self.r(self.src()))]

    def g_fence(self, forbid):
        return [self.rng.choice(["fence", "fence rw, rw", "fence.i", "fence iorw, iorw"])]

    def g_trap(self, forbid):
        """A synchronous exception; the handler logs it and skips the instruction."""
        return [self.rng.choices(["ecall", "ebreak", ".word 0x00000000   # illegal"], [6, 2, 1])[0]]

    def simple(self, forbid):
        """One straight-line group (no control flow)."""
        table = [
            (self.g_alu_rr, 22), (self.g_alu_ri, 20), (self.g_upper, 4),
            (self.g_li, 4), (self.g_shift_corner, 3), (self.g_muldiv, 14),
            (self.g_zb, 10), (self.g_chain, 6), (self.g_load, 12), (self.g_store, 10),
            (self.g_csr, 2), (self.g_fence, 0.5),
        ]
        if self.traps:
            table.append((self.g_trap, 0.5))
        fns, weights = zip(*table)
        return self.rng.choices(fns, weights)[0](forbid)

    def simples(self, n, forbid):
        out = []
        for _ in range(n):
            out += self.simple(forbid)
        return out

    # --- control-flow blocks -------------------------------------------------
    def branch_operands(self, forbid, lines):
        r = self.rng.random()
        a = self.src()
        if r < 0.15:
            b = a                                   # always equal
        elif r < 0.3:
            b = 0
        elif r < 0.5:
            # Make the operands close so eq/lt outcomes vary.
            b = self.dst(forbid | {0})
            lines.append("addi %s, %s, %d" % (self.r(b), self.r(a), self.rng.choice([0, 0, 1, -1])))
        else:
            b = self.src()
        if self.rng.random() < 0.5:
            a, b = b, a
        return a, b

    def b_branch(self, forbid):
        lines = []
        a, b = self.branch_operands(forbid, lines)
        lab = self.label("fwd")
        lines.append("%s %s, %s, %s" % (self.rng.choice(BRANCHES), self.r(a), self.r(b), lab))
        lines += self.simples(self.rng.randint(0, 4), forbid)
        lines.append(lab + ":")
        return lines

    def b_jal(self, forbid):
        lab = self.label("jal")
        rd = self.dst(forbid)
        lines = ["jal %s, %s" % (self.r(rd), lab)]
        lines += self.simples(self.rng.randint(0, 3), forbid)
        lines.append(lab + ":")
        # Use the link value so a wrong pc+4 shows up in the signature.
        if rd != 0 and self.rng.random() < 0.5:
            lines.append("xor %s, %s, %s" % (self.r(self.dst(forbid)), self.r(rd), self.r(self.src())))
        return lines

    def b_jalr(self, forbid):
        lab = self.label("jalr")
        rt = self.dst(forbid | {0})
        rd = self.dst(forbid)
        if self.rng.random() < 0.2:
            rd = rt   # jalr reads rs1 before writing rd
        delta = 4 * self.rng.randint(-4, 4)
        low = self.rng.choice([0, 1])  # jalr clears bit 0 of the target
        expr = "%s%+d" % (lab, delta + low) if delta + low else lab
        lines = ["la %s, %s" % (self.r(rt), expr),
                 "jalr %s, %d(%s)" % (self.r(rd), -delta, self.r(rt))]
        lines += self.simples(self.rng.randint(0, 3), forbid)
        lines.append(lab + ":")
        return lines

    def b_call(self, forbid):
        """Call a leaf subroutine emitted after the main body."""
        sub = self.label("sub")
        link = self.dst(forbid | {0})
        skip = self.rng.random() < 0.2      # return to link+4, skipping one insn
        lines = []
        if self.rng.random() < 0.6:
            lines.append("jal %s, %s" % (self.r(link), sub))
        else:
            rt = self.dst(forbid | {0})
            lines += ["la %s, %s" % (self.r(rt), sub), "jalr %s, 0(%s)" % (self.r(link), self.r(rt))]
        if skip:
            lines.append("addi %s, %s, 1" % (self.r(self.dst(forbid)), self.r(self.src())))
        body = [sub + ":"]
        body += self.simples(self.rng.randint(1, 6), set(forbid) | {link})
        ret_rd = self.rng.choice([0, 0, 0, link, self.dst(set(forbid) | {link})])
        body.append("jalr %s, %d(%s)" % (self.r(ret_rd), 4 if skip else 0, self.r(link)))
        self.subs.append(body)
        return lines

    def b_loop(self, forbid):
        """Bounded backward loop; the counter lives in tp."""
        lab = self.label("loop")
        n = self.rng.randint(1, 6)
        lines = ["li %s, %d" % (self.r(LOOP_REG), n), lab + ":"]
        for _ in range(self.rng.randint(1, 4)):
            if self.rng.random() < 0.25:
                lines += self.b_branch(forbid)
            else:
                lines += self.simple(forbid)
        lines.append("addi %s, %s, -1" % (self.r(LOOP_REG), self.r(LOOP_REG)))
        back = self.rng.choice(["bnez {t}, {l}", "bne zero, {t}, {l}", "blt zero, {t}, {l}",
                                "bltu zero, {t}, {l}", "bge {t}, {one}, {l}"])
        if "{one}" in back:
            one = self.dst(forbid | {0})
            lines.append("li %s, 1" % self.r(one))
            back = back.replace("{one}", self.r(one))
        lines.append(back.format(t=self.r(LOOP_REG), l=lab))
        return lines

    def block(self):
        table = [(self.simple, 60), (self.b_branch, 12), (self.b_jal, 4),
                 (self.b_jalr, 3), (self.b_call, 3), (self.b_loop, 4)]
        fns, weights = zip(*table)
        return self.rng.choices(fns, weights)[0](frozenset())

    # --- whole program ---------------------------------------------------------
    def generate(self):
        init_mscratch = self.rand32()
        init_regs = {r: self.rand32() for r in WRITABLE}
        scratch = [self.rand32() for _ in range(SCRATCH_WORDS)]
        count = 0
        while count < self.length:
            self.block_dsts = set()
            b = self.block()
            count += sum(1 for l in b if not l.endswith(":"))
            self.blocks.append(b)
            dsts = sorted(self.block_dsts - set(RESERVED))
            self.rng.shuffle(dsts)
            self.traced.append(sorted(dsts[:TRACE_MAX_REGS]))
        self.init_mscratch = init_mscratch
        self.init_regs = init_regs
        self.scratch = scratch

    def trace_entries(self, truncate=None):
        """[(block index, register)] in trace-buffer order."""
        n = len(self.blocks) if truncate is None else truncate
        return [(b, r) for b in range(n) for r in self.traced[b]]

    def sig_words(self, truncate=None):
        return SIG_TRACE + len(self.trace_entries(truncate))

    def render(self, truncate=None):
        blocks = self.blocks if truncate is None else self.blocks[:truncate]
        ntrace = len(self.trace_entries(truncate))
        g = self.r(BASE_REG)
        sig_to_gp = (SIG_SCRATCH * 4) + SCRATCH_BIAS   # gp - begin_signature
        out = []
        w = out.append
        w("# Differential-test program, generated by tests/difftest/gen_program.py")
        w("# seed=%d length=%d traps=%d alphabet=%s version=%d blocks=%d%s"
          % (self.seed, self.length, int(self.traps), self.alphabet, GENERATOR_VERSION,
             len(blocks), "" if truncate is None else " (truncated from %d)" % len(self.blocks)))
        w("    .option norvc")
        w("    .section .text.init, \"ax\", @progbits")
        w("    .globl _start")
        w("_start:")
        w("    la t0, trap_handler")
        w("    csrw mtvec, t0")
        w("    li t0, %d" % s32(self.init_mscratch))
        w("    csrw mscratch, t0")
        w("    la %s, scratch+%d" % (g, SCRATCH_BIAS))
        w("    la %s, trace_buf" % self.r(TRACE_REG))
        w("    li %s, 0" % self.r(LOOP_REG))
        for r in WRITABLE:
            w("    li %s, %d" % (self.r(r), s32(self.init_regs[r])))
        tr = self.r(TRACE_REG)
        toff = 0
        for i, b in enumerate(blocks):
            w("# block %d" % i)
            for l in b:
                w(l if l.endswith(":") else "    " + l)
            # Record the block's results: a wrong value shows up even if a
            # later block overwrites the register.
            for r in self.traced[i]:
                if toff == 2048:
                    w("    addi %s, %s, 2047" % (tr, tr))
                    w("    addi %s, %s, 1" % (tr, tr))
                    toff = 0
                w("    sw %s, %d(%s)   # trace" % (self.r(r), toff, tr))
                toff += 4
        w("# end of body")
        w("    j dump")
        w("# subroutines")
        for body in self.subs:
            for l in body:
                w(l if l.endswith(":") else "    " + l)
        # Trap handler: count the trap, log (mcause, mepc) for the first
        # entries, skip the trapping instruction.  Uses only gp-relative memory.
        tc = (SIG_TRAP_COUNT * 4) - sig_to_gp
        tl = (SIG_TRAP_LOG * 4) - sig_to_gp
        w("    .align 2")
        w("trap_handler:")
        ts = -TRAP_SAVE_BYTES - sig_to_gp
        w("    sw t0, %d(%s)" % (ts, g))
        w("    sw t1, %d(%s)" % (ts + 4, g))
        w("    lw t0, %d(%s)" % (tc, g))
        w("    addi t1, t0, 1")
        w("    sw t1, %d(%s)" % (tc, g))
        w("    li t1, %d" % TRAP_LOG_ENTRIES)
        w("    bgeu t0, t1, 1f")
        w("    slli t0, t0, 3")
        w("    add t0, t0, %s" % g)
        w("    csrr t1, mcause")
        w("    sw t1, %d(t0)" % tl)
        w("    csrr t1, mepc")
        w("    sw t1, %d(t0)" % (tl + 4))
        w("1:")
        w("    csrr t0, mepc")
        w("    addi t0, t0, 4")
        w("    csrw mepc, t0")
        w("    lw t0, %d(%s)" % (ts, g))
        w("    lw t1, %d(%s)" % (ts + 4, g))
        w("    mret")
        # Dump: all registers, gp-relative (gp is intact by construction).
        w("dump:")
        for r in range(1, 32):
            w("    sw %s, %d(%s)" % (self.r(r), (SIG_REGS + r - 1) * 4 - sig_to_gp, g))
        w("    csrr t0, mscratch")
        w("    sw t0, %d(%s)" % (SIG_MSCRATCH * 4 - sig_to_gp, g))
        # Print: header line, one line of 8 nibble characters per word, trailer.
        w("    la s2, tohost")
        w("    li s4, 0x01010000")
        for ch in HEADER + "\n":
            w("    li a2, %d" % ord(ch))
            w("    jal ra, putc")
        w("    la s0, begin_signature")
        w("    la s1, end_signature")
        w("    la s3, console_alphabet")
        w("print_word:")
        w("    lw a0, 0(s0)")
        w("    li a1, 8")
        w("print_nibble:")
        w("    srli a2, a0, 28")
        w("    add a2, a2, s3")
        w("    lbu a2, 0(a2)")
        w("    jal ra, putc")
        w("    slli a0, a0, 4")
        w("    addi a1, a1, -1")
        w("    bnez a1, print_nibble")
        w("    li a2, 10")
        w("    jal ra, putc")
        w("    addi s0, s0, 4")
        w("    bltu s0, s1, print_word")
        for ch in TRAILER + "\n":
            w("    li a2, %d" % ord(ch))
            w("    jal ra, putc")
        w("    li a2, 1            # exit code 0: (0 << 1) | 1")
        w("    sw a2, 0(s2)")
        w("    sw zero, 4(s2)")
        w("halt:")
        w("    j halt")
        w("putc:")
        w("    sw a2, 0(s2)")
        w("    sw s4, 4(s2)")
        w("    ret")
        w("")
        w("    .section .rodata")
        w("console_alphabet:")
        w("    .ascii \"%s\"" % ALPHABETS[self.alphabet])
        w("")
        w("    .section .data")
        w("    .align 4")
        w("trap_save:")
        w("    .fill %d, 1, 0" % TRAP_SAVE_BYTES)
        w("    .globl begin_signature")
        w("begin_signature:")
        w("sig_regs:")
        w("    .fill %d, 4, 0" % NUM_REGS)
        w("sig_mscratch:")
        w("    .word 0")
        w("sig_trap_count:")
        w("    .word 0")
        w("sig_trap_log:")
        w("    .fill %d, 4, 0" % (2 * TRAP_LOG_ENTRIES))
        w("scratch:")
        for i in range(0, SCRATCH_WORDS, 4):
            w("    .word " + ", ".join("0x%08x" % v for v in self.scratch[i:i + 4]))
        w("trace_buf:")
        w("    .fill %d, 4, 0" % ntrace)
        w("    .globl end_signature")
        w("end_signature:")
        w("")
        w("    .section .tohost, \"aw\", @progbits")
        w("    .align 6")
        w("    .globl tohost")
        w("    .type tohost, @object")
        w("    .size tohost, 8")
        w("tohost:")
        w("    .dword 0")
        w("    .globl fromhost")
        w("    .type fromhost, @object")
        w("    .size fromhost, 8")
        w("fromhost:")
        w("    .dword 0")
        return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate a random RV32IM + Zba + Zbb differential-test program.")
    ap.add_argument("seed", type=int)
    ap.add_argument("out", help="output assembly file ('-' for stdout)")
    ap.add_argument("--length", type=int, default=2000,
                    help="approximate static instruction count of the random body (default 2000)")
    ap.add_argument("--no-traps", action="store_true", help="do not generate ecall/ebreak/illegal")
    ap.add_argument("--alphabet", choices=sorted(ALPHABETS), default="even",
                    help="console nibble alphabet (default: even; see module doc)")
    ap.add_argument("--truncate", type=int, default=None,
                    help="emit only the first K body blocks (for bisecting a mismatch)")
    ap.add_argument("--print-blocks", action="store_true",
                    help="print the number of body blocks to stdout")
    args = ap.parse_args(argv)
    gen = ProgramGen(args.seed, args.length, not args.no_traps, args.alphabet)
    gen.generate()
    text = gen.render(args.truncate)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)
    if args.print_blocks:
        print(len(gen.blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
