#!/usr/bin/env python3
"""fw_report: after each firmware link, check the image's ABI and print its size report.

ABI check (fails the build): the ELF is 32-bit RISC-V, soft-float ILP32 without the C extension,
its .riscv.attributes name rv32i + m only, and the link pulled libc/libm from our newlib build and
libgcc from the rv32im/ilp32 multilib, nothing else (see cmake/riscv32-toolchain.cmake for why).

Size report: bytes per output section and per module (input object or archive member), from the
linker map, grouped into the NIC memory categories the evaluation uses (code, lookup, buffers,
queues, other).
"""
import argparse
import os
import re
import struct
import subprocess
import sys

SECTIONS = [".text", ".rodata", ".data", ".bss", ".lookup", ".queues", ".pktbuf"]
CATEGORY = {".text": "code", ".rodata": "code", ".data": "other", ".bss": "other", ".lookup": "lookup",
            ".queues": "queues", ".pktbuf": "buffers"}


def fail(msg):
    print(f"fw_report: error: {msg}", file=sys.stderr)
    sys.exit(1)


def check_elf_header(path):
    with open(path, "rb") as f:
        ident = f.read(52)
    if len(ident) < 52 or ident[:4] != b"\x7fELF":
        fail(f"{path}: not an ELF file")
    if ident[4] != 1:
        fail(f"{path}: not ELFCLASS32: the link picked a 64-bit multilib")
    machine, = struct.unpack_from("<H", ident, 18)
    flags, = struct.unpack_from("<I", ident, 36)
    if machine != 243:
        fail(f"{path}: e_machine {machine} is not RISC-V")
    if flags & 0x1:
        fail(f"{path}: e_flags has RVC set: compressed instructions are not supported by the core")
    if flags & 0x6:
        fail(f"{path}: e_flags float ABI 0x{flags & 6:x} is not soft-float ilp32")


def check_attributes(path, readelf):
    out = subprocess.run([readelf, "-A", path], capture_output=True, text=True, check=True).stdout
    m = re.search(r'Tag_RISCV_arch: "([^"]+)"', out)
    if not m:
        fail(f"{path}: no Tag_RISCV_arch attribute")
    parts = m.group(1).split("_")
    if not re.fullmatch(r"rv32i\d+p\d+", parts[0]) or not any(re.fullmatch(r"m\d+p\d+", e) for e in parts):
        fail(f"{path}: arch {m.group(1)!r} is not rv32im")
    for e in parts[1:]:
        if not re.fullmatch(r"(m|zicsr|zifencei|zmmul|zba|zbb)\d+p\d+", e):
            fail(f"{path}: arch {m.group(1)!r} has extension {e!r} the core does not implement")
    return m.group(1)


def parse_map(path):
    """Returns (loaded archives/objects, {section: {module: bytes}})."""
    loads, sizes = [], {s: {} for s in SECTIONS}
    cur = None
    pending = None  # input section name on a line of its own, size on the next line
    in_memmap = False
    with open(path) as f:
        for line in f:
            if line.startswith("LOAD "):
                loads.append(line[5:].strip())
                continue
            if line.startswith("Linker script and memory map"):
                in_memmap = True
                continue
            if not in_memmap:
                continue
            m = re.match(r"^(\.[\w.]+)\s", line)
            if m and not line.startswith(" "):
                cur = m.group(1) if m.group(1) in SECTIONS else None
                pending = None
                continue
            if cur is None:
                continue
            m = re.match(r"^ (\.?[\w.$*]+(?:\.[\w.$]+)*)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
            if m and (m.group(1) or pending):
                size = int(m.group(3), 16)
                module = m.group(4).strip()
                sizes[cur][module] = sizes[cur].get(module, 0) + size
                pending = None
                continue
            m = re.match(r"^ (\.[\w.$]+)\s*$", line)
            if m:
                pending = m.group(1)
    return loads, sizes


def short(module):
    m = re.match(r"(.*/)?([^/]+\.a)\((.+)\)$", module)
    if m:
        return f"{m.group(2)}:{m.group(3)}"
    return os.path.basename(module)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--elf", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--readelf", required=True)
    ap.add_argument("--newlib", required=True, help="directory holding our newlib libc.a")
    ap.add_argument("--libgcc", required=True, help="the rv32im/ilp32 libgcc.a")
    ap.add_argument("--top", type=int, default=12, help="modules to list per section")
    ap.add_argument("--mem-out", help="also write the NIC memory categories here, one 'category bytes' "
                    "line each (read by nicsim for its nic_mem report)")
    args = ap.parse_args()

    check_elf_header(args.elf)
    arch = check_attributes(args.elf, args.readelf)
    loads, sizes = parse_map(args.map)
    libs = [x for x in loads if x.endswith(".a")]
    want = {os.path.realpath(os.path.join(args.newlib, "libc.a")), os.path.realpath(args.libgcc)}
    got = {os.path.realpath(x) for x in libs}
    for w in want:
        if w not in got:
            fail(f"{args.elf}: link did not use {w}")
    for g in got:
        if g.endswith(("libc.a", "libm.a")) and not g.startswith(os.path.realpath(args.newlib)):
            fail(f"{args.elf}: link used {g}, not our newlib")
        if g.endswith("libgcc.a") and g != os.path.realpath(args.libgcc):
            fail(f"{args.elf}: link used {g}, not the rv32im/ilp32 libgcc")

    name = os.path.basename(args.elf)
    totals = {s: sum(sizes[s].values()) for s in SECTIONS}
    cats = {}
    for s, n in totals.items():
        cats[CATEGORY[s]] = cats.get(CATEGORY[s], 0) + n
    if args.mem_out:
        with open(args.mem_out, "w") as f:
            for c, n in cats.items():
                f.write(f"{c} {n}\n")
    print(f"== {name}: {arch}, newlib {os.path.relpath(args.newlib)}")
    print("   " + "  ".join(f"{s} {totals[s]}" for s in SECTIONS))
    print("   NIC memory by category: " + ", ".join(f"{c} {n} B" for c, n in cats.items()))
    for s in (".text", ".rodata", ".data", ".bss"):
        mods = sorted(sizes[s].items(), key=lambda kv: -kv[1])
        if not mods:
            continue
        shown = ", ".join(f"{short(m)} {n}" for m, n in mods[: args.top] if n)
        rest = sum(n for _, n in mods[args.top:])
        print(f"   {s:8} by module: {shown}" + (f", (+{len(mods) - args.top} more: {rest})" if rest else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
