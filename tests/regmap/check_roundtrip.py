#!/usr/bin/env python3
"""Round-trip check: every register, field, reset value, block ID/version and memory-map constant
in the TOML sources appears with the same value in the generated C header and Verilog include,
and neither output has a constant the sources do not explain.

The sources are read here with tomllib directly, independently of the generator's own loader, so
a generator bug cannot vouch for itself.
"""
import argparse
import re
import sys
import tomllib


def parse_h(path):
    vals = {}
    for line in open(path):
        m = re.match(r"#define (NIC_\w+) (?:NIC_U32|NIC_MM_U32)\((0x[0-9A-F]+)\)", line)
        if m:
            vals[m.group(1)] = int(m.group(2), 16)
            continue
        m = re.match(r"#define (NIC_\w+) (\d+)\b", line)
        if m:
            vals[m.group(1)] = int(m.group(2))
    return vals


def parse_vh(path):
    vals = {}
    for line in open(path):
        m = re.match(r"`define (NIC_\w+) (?:(\d+)'h([0-9A-F]+)|(\d+))\s*$", line)
        if m:
            vals[m.group(1)] = int(m.group(3), 16) if m.group(3) else int(m.group(4))
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--regmap", required=True)
    ap.add_argument("--memmap", required=True)
    ap.add_argument("--gen-dir", required=True)
    a = ap.parse_args()
    regs = tomllib.load(open(a.regmap, "rb"))
    mm = tomllib.load(open(a.memmap, "rb"))
    h = parse_h(f"{a.gen_dir}/nic_regs.h")
    h.update(parse_h(f"{a.gen_dir}/nic_memmap.h"))
    vh = parse_vh(f"{a.gen_dir}/nic_regs.vh")
    vh.update(parse_vh(f"{a.gen_dir}/nic_memmap.vh"))
    errors = []
    want_h, want_vh = {}, {}

    def expect(name, value, in_h=True, in_vh=True):
        if in_h:
            want_h[name] = value
        if in_vh:
            want_vh[name] = value

    mmio = mm["mmio"]["base"]
    expect("NIC_MMIO_BASE", mmio)
    expect("NIC_BLOCK_SIZE", 0x1000, in_vh=False)
    expect("NIC_BLOCK_ID", 0, in_vh=False)
    expect("NIC_BLOCK_VERSION", 4, in_vh=False)
    expect("NIC_NUM_BLOCKS", len(regs["block"]), in_vh=False)
    expect("NIC_BLOCK_BITS", 12, in_h=False)
    for b in regs["block"]:
        B = "NIC_" + b["name"].upper()
        idv = int.from_bytes(b["id"].encode(), "big")
        expect(B + "_OFFSET", b["offset"])
        expect(B + "_BASE", mmio + b["offset"], in_vh=False)
        expect(B + "_ID_VALUE", idv)
        expect(B + "_VERSION_VALUE", b["version"])
        expect(B + "_VERSION_MAJOR", b["version"] >> 16, in_vh=False)
        allregs = [dict(name="id", offset=0, reset=idv), dict(name="version", offset=4, reset=b["version"])]
        allregs += b.get("reg", [])
        fields_of = {}
        for r in allregs:
            R = f"{B}_{r['name'].upper()}"
            expect(R, r["offset"])
            expect(R + "_RESET", r.get("reset", 0))
            fields = r.get("field", [])
            if "fields_like" in r:
                fields = fields_of[r["fields_like"]]
            fields_of[r["name"]] = fields
            for f in fields:
                F = f"{R}_{f['name'].upper()}"
                bits = [int(x) for x in f["bits"].split(":")]
                msb, lsb = bits[0], bits[-1]
                width = msb - lsb + 1
                expect(F + "_SHIFT", lsb, in_vh=False)
                expect(F + "_MASK", ((1 << width) - 1) << lsb, in_vh=False)
                expect(F + "_WIDTH", width)
                expect(F + "_LSB", lsb, in_h=False)
                expect(F + "_MSB", msb, in_h=False)
                for v in f.get("value", []):
                    expect(f"{F}_{v['name'].upper()}", v["value"])
    bars = {b["name"]: b for b in mm.get("host_bar", [])}
    for lay in regs.get("layout", []):
        L = "NIC_" + lay["name"].upper()
        size = bars[lay["bar_page"]]["page"] if "bar_page" in lay else lay["size"]
        expect(L + "_SIZE", size)
        expect(L + "_WORDS", size // 4)
        for w in lay["word"]:
            W = f"{L}_{w['name'].upper()}"
            expect(W, w["offset"])
            expect(W + "_IDX", w["offset"] // 4)
            for f in w.get("field", []):
                F = f"{W}_{f['name'].upper()}"
                bits = [int(x) for x in f["bits"].split(":")]
                msb, lsb = bits[0], bits[-1]
                width = msb - lsb + 1
                expect(F + "_SHIFT", lsb, in_vh=False)
                expect(F + "_MASK", ((1 << width) - 1) << lsb, in_vh=False)
                expect(F + "_WIDTH", width)
                expect(F + "_LSB", lsb, in_h=False)
                expect(F + "_MSB", msb, in_h=False)
                for v in f.get("value", []):
                    expect(f"{F}_{v['name'].upper()}", v["value"])
    for key in ("imem", "sram", "mmio"):
        expect(f"NIC_{key.upper()}_BASE", mm[key]["base"])
        expect(f"NIC_{key.upper()}_SIZE", mm[key]["size"])
    off = 0
    for r in mm["sram_region"]:
        n = "NIC_SRAM_" + r["name"].upper()
        expect(n + "_OFFSET", off)
        expect(n + "_BASE", mm["sram"]["base"] + off)
        expect(n + "_SIZE", r["size"])
        off += r["size"]
    if "sendq" in mm:
        sq = next(r for r in mm["sram_region"] if r["name"] == "sendq")
        expect("NIC_SENDQ_STRIDE", mm["sendq"]["stride"])
        expect("NIC_SENDQ_SLOTS", sq["size"] // mm["sendq"]["stride"])
    for b in mm.get("host_bar", []):
        n = "NIC_BAR_" + b["name"].upper()
        expect(n + "_INDEX", b["index"])
        expect(n + "_CODE", b["code"])
        expect(n + "_SIZE", b["size"])
        if "page" in b:
            expect(n + "_PAGE", b["page"])
            expect(n + "_PAGE_BITS", b["page"].bit_length() - 1)
            expect(n + "_PAGES", b["size"] // b["page"])

    for label, got, want in (("nic_regs.h/nic_memmap.h", h, want_h), ("nic_regs.vh/nic_memmap.vh", vh, want_vh)):
        for name, value in sorted(want.items()):
            if name not in got:
                errors.append(f"{label}: {name} missing")
            elif got[name] != value:
                errors.append(f"{label}: {name} = 0x{got[name]:x}, source says 0x{value:x}")
        for name in sorted(set(got) - set(want)):
            errors.append(f"{label}: {name} is not explained by the sources")
    for e in errors:
        print("regmap roundtrip:", e, file=sys.stderr)
    print(f"regmap roundtrip: {len(want_h)} C constants, {len(want_vh)} Verilog constants checked, "
          f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
