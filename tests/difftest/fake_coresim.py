#!/usr/bin/env python3
"""Test double for coresim, used to test the difftest runner itself.

Accepts coresim's command line (`--max-cycles N [--signature F] prog.elf`),
optionally plants a known "core bug" by rewriting matching instruction words
in the ELF's .text, then runs the program on QEMU and passes its console
output through on stdout, exiting 0 when the program exits 0 through HTIF.

With no --inject the fake must agree with QEMU on every seed; with an
injection the runner must report a mismatch and bisect it to a block that
contains the mutated instruction.  Never a reference for the real core.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile

# name -> (mask, match, function applied to the matching word)
INJECTIONS = {
    # mulhsu decodes as mulhu
    "mulhsu": (0xFE00707F, 0x02002033, lambda w: w | 0x00001000),
    # sra (register) decodes as srl
    "sra": (0xFE00707F, 0x40005033, lambda w: w & ~0x40000000),
    # lb loads zero-extended, like lbu
    "lb": (0x0000707F, 0x00000003, lambda w: w | 0x00004000),
}


def patch_text(data, injection):
    """Return (patched bytes, number of words changed) for the .text section."""
    mask, match, fn = INJECTIONS[injection]
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise ValueError("not a little-endian ELF32 file")
    e_shoff, = struct.unpack_from("<I", data, 0x20)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x2E)

    def section(i):
        return struct.unpack_from("<IIIIIIIIII", data, e_shoff + i * e_shentsize)

    strtab = section(e_shstrndx)
    out = bytearray(data)
    changed = 0
    for i in range(e_shnum):
        name_off, _type, _flags, _addr, offset, size = section(i)[:6]
        start = strtab[4] + name_off
        name = data[start:data.index(b"\0", start)]
        if name != b".text":
            continue
        for pos in range(offset, offset + size - 3, 4):
            w, = struct.unpack_from("<I", out, pos)
            if w & mask == match:
                struct.pack_into("<I", out, pos, fn(w) & 0xFFFFFFFF)
                changed += 1
    return bytes(out), changed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-cycles", type=int, default=0)
    ap.add_argument("--signature", help="ignored (not implemented by the fake)")
    ap.add_argument("--qemu", default="qemu-system-riscv32")
    ap.add_argument("--inject", choices=sorted(INJECTIONS))
    ap.add_argument("elf")
    args = ap.parse_args()
    elf = args.elf
    tmp = None
    if args.inject:
        with open(elf, "rb") as f:
            patched, changed = patch_text(f.read(), args.inject)
        fd, tmp = tempfile.mkstemp(suffix=".elf")
        with os.fdopen(fd, "wb") as f:
            f.write(patched)
        elf = tmp
        print("fake_coresim: injected %s into %d instruction(s)" % (args.inject, changed), file=sys.stderr)
    # QEMU's console drops characters on a full pipe: give it a regular file.
    try:
        with tempfile.TemporaryFile() as out:
            p = subprocess.run([args.qemu, "-machine", "spike", "-bios", "none", "-kernel", elf,
                                "-display", "none", "-serial", "stdio", "-monitor", "none"],
                               stdin=subprocess.DEVNULL, stdout=out, timeout=60)
            out.seek(0)
            data = out.read()
    finally:
        if tmp:
            os.unlink(tmp)
    sys.stdout.buffer.write(data)
    print("fake_coresim: qemu exit %d" % p.returncode, file=sys.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
