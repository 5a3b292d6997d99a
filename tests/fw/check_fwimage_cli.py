#!/usr/bin/env python3
"""The flash image as built, through the `fwimage verify` loader a flasher uses:
the real image is accepted; a flipped payload bit, a flipped header bit, a truncated image and a
wrong required version are each rejected with a message naming the problem (exit status 1);
the Verilog hex holds exactly the payload words."""
import argparse
import os
import subprocess
import sys
import tempfile


def run(fwimage, *args):
    r = subprocess.run([fwimage, *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fwimage", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--hex", required=True)
    a = ap.parse_args()
    good = open(a.image, "rb").read()
    payload = open(a.bin, "rb").read()
    fails = []

    rc, out = run(a.fwimage, "verify", a.image)
    if rc != 0 or "ok" not in out:
        fails.append(f"good image rejected: {out.strip()}")
    else:
        print(out.strip())

    cases = [
        ("payload bit flip", lambda b: b[:100] + bytes([b[100] ^ 0x04]) + b[101:], "payload CRC mismatch"),
        ("header bit flip", lambda b: b[:13] + bytes([b[13] ^ 0x80]) + b[14:], "header CRC mismatch"),
        ("truncated", lambda b: b[:-8], "truncated"),
        ("not an image", lambda b: payload, "bad magic"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, mutate, want in cases:
            p = os.path.join(tmp, "bad.img")
            open(p, "wb").write(mutate(good))
            rc, out = run(a.fwimage, "verify", p)
            status = "ok  " if rc == 1 and want in out else "FAIL"
            print(f"{status} {name}: exit {rc}: {out.strip()}")
            if status == "FAIL":
                fails.append(name)
        rc, out = run(a.fwimage, "verify", a.image, "--major", "99")
        print(f"{'ok  ' if rc == 1 and 'version' in out else 'FAIL'} version mismatch: {out.strip()}")
        if not (rc == 1 and "version" in out):
            fails.append("version mismatch")

    words = [int(x, 16) for x in open(a.hex).read().split()]
    want = [int.from_bytes(payload[i:i + 4], "little") for i in range(0, len(payload), 4)]
    if words != want:
        fails.append("hex file does not hold the payload words")
    if good[48:] != payload:
        fails.append("image payload differs from the raw binary")
    for f in fails:
        print("FAIL:", f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
