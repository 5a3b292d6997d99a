#!/usr/bin/env python3
"""The generator must refuse broken sources with a message that names the problem, and write
nothing. Each case mutates the real sources in one way."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

CASES = [
    # (name, which file, regex to replace, replacement, expected message fragment)
    ("register offset overlap", "regmap", r'name = "fw_state"\n  offset = 0x0C', 'name = "fw_state"\n  offset = 0x08',
     "overlaps register ctrl"),
    ("field beyond bit 31", "regmap", r'bits = "31:24"', 'bits = "32:24"', "outside the 32-bit register"),
    ("fields overlap", "regmap", r'name = "win_imem"\n    bits = "1"', 'name = "win_imem"\n    bits = "0"',
     "overlap another field"),
    ("block overlap", "regmap", r'name = "intc"\noffset = 0x1000', 'name = "intc"\noffset = 0x0000',
     "overlaps block hostif"),
    ("block offset unaligned", "regmap", r'offset = 0x2000', 'offset = 0x2100', "not a multiple"),
    ("reset does not fit the fields", "regmap", r'reset = 0x00000001', 'reset = 0x00000004',
     "sets bits outside every field"),
    ("misaligned register", "regmap", r'offset = 0x28\n', 'offset = 0x2A\n', "4-byte aligned"),
    ("unknown access type", "regmap", r'access = "w1s"', 'access = "w1x"', "is not one of"),
    ("bad id", "regmap", r'id = "TMR1"', 'id = "TMR"', "four printable ASCII"),
    ("sram regions do not tile", "memmap", r'size = 0x00002000          # 8 KiB',
     'size = 0x00003000', "regions add up"),
    ("send queue stride not a power of two", "memmap", r'stride = 0x800', 'stride = 0x900', "power of two"),
    ("memories overlap", "memmap", r'base = 0x10000000', 'base = 0x00008000', "overlaps"),
    ("layout word outside the layout", "regmap", r'name = "crc"\n  offset = 0xC', 'name = "crc"\n  offset = 0x10',
     "inside the layout"),
    # enumerated field values
    ("duplicate value name", "regmap", r'name = "halted"\n      value = 2', 'name = "ready"\n      value = 2',
     "hostif.fw_state.state.ready: duplicate value name"),
    ("duplicate value", "regmap", r'name = "shutdown"\n      value = 3', 'name = "shutdown"\n      value = 1',
     "hostif.fw_state.state.shutdown: value 1 repeats value ready"),
    ("value wider than its field", "regmap", r'name = "len"\n      value = 3', 'name = "len"\n      value = 16',
     "dma.cpl_head.err.len: value 16 does not fit the field's 4 bits"),
    ("negative value", "regmap", r'name = "len"\n      value = 3', 'name = "len"\n      value = -1',
     "dma.cpl_head.err.len: value -1 does not fit"),
    ("value not an integer", "regmap", r'name = "len"\n      value = 3', 'name = "len"\n      value = "3"',
     "dma.cpl_head.err.len.value: expected an integer"),
    ("value name a generated suffix", "regmap", r'name = "boot"', 'name = "mask"', "is reserved"),
    ("bad value name", "regmap", r'name = "boot"', 'name = "Boot"', "bad name 'Boot'"),
    ("value without a doc", "regmap", r'(name = "ok"\n      value = 0)\n      doc = "Done."', r'\1',
     "dma.cpl_head.err.ok: every value needs a doc string"),
    ("reset value none of the field's values", "regmap",
     r'(name = "fw_state"\n  offset = 0x0C\n  access = "rw"\n  side = "core"\n)  reset = 0', r'\1  reset = 7',
     "hostif.fw_state.state: reset value 7 of the field is none of its values"),
    ("unknown key in a value", "regmap", r'name = "ok"\n      value = 0', 'name = "ok"\n      valeu = 0',
     "dma.cpl_head.err.ok: unknown key 'valeu'"),
    ("unknown key in a field", "regmap", r'name = "state"\n    bits = "7:0"', 'name = "state"\n    bitz = "7:0"',
     "hostif.fw_state.state: unknown key 'bitz'"),
    ("unknown key in a register", "regmap", r'name = "scratch"\n  offset = 0x28\n  access',
     'name = "scratch"\n  offset = 0x28\n  acces', "hostif.scratch: unknown key 'acces'"),
    ("unknown key in a memory-map table", "memmap", r'page  = 0x1000', 'pages = 0x1000',
     "host_bar.doorbell: unknown key 'pages'"),
    ("two source names meet in one generated name", "regmap", r'name = "seq"\n  offset = 0x8',
     'name = "buf_idx"\n  offset = 0x8', "NIC_RXDESC_BUF_IDX: generated twice"),
    # the doorbell page (linker/memmap.toml) and what depends on it
    ("doorbell page not a power of two", "memmap", r'page  = 0x1000', 'page  = 0x1800', "power of two"),
    ("doorbell register inside the send queue window", "regmap", r'name = "sq_pi"\n  offset = 0x800',
     'name = "sq_pi"\n  offset = 0x400', "dbpage.sq_pi: offset 0x400 lies in the send queue window"),
    ("send queue window as large as the doorbell page", "memmap", r'stride = 0x800', 'stride = 0x1000',
     "below the doorbell page"),
    ("doorbell source fields disagree with the page", "regmap", r'name = "offset"\n    bits = "11:0"',
     'name = "offset"\n    bits = "10:0"', "doorbell.head_src.offset: must be bits 11:0"),
    ("layout on a BAR without pages", "regmap", r'bar_page = "doorbell"', 'bar_page = "window"',
     "names no host_bar with a page size"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--generator", required=True)
    ap.add_argument("--regmap", required=True)
    ap.add_argument("--memmap", required=True)
    a = ap.parse_args()
    src = {"regmap": open(a.regmap).read(), "memmap": open(a.memmap).read()}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, which, pat, repl, msg in CASES:
            text = dict(src)
            new, n = re.subn(pat, repl, text[which], count=1)
            if n != 1:
                print(f"FAIL {name}: the test's pattern no longer matches the source", file=sys.stderr)
                failures += 1
                continue
            text[which] = new
            paths = {}
            for k, v in text.items():
                paths[k] = os.path.join(tmp, f"{k}.toml")
                with open(paths[k], "w") as f:
                    f.write(v)
            out = os.path.join(tmp, "out")
            r = subprocess.run([sys.executable, a.generator, "--regmap", paths["regmap"], "--memmap",
                                paths["memmap"], "--out-dir", out], capture_output=True, text=True)
            if r.returncode != 1 or msg not in r.stderr or os.path.exists(out):
                print(f"FAIL {name}: exit {r.returncode}, stderr {r.stderr.strip()!r}, "
                      f"wrote output: {os.path.exists(out)}", file=sys.stderr)
                failures += 1
            else:
                print(f"ok   {name}: {r.stderr.strip()}")
    print(f"{len(CASES) - failures}/{len(CASES)} bad sources rejected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
