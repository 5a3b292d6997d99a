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
