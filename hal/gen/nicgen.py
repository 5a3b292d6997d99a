#!/usr/bin/env python3
"""nicgen: generate the NIC's register map and memory map artefacts from their one source.

Inputs (TOML, the single source of truth):
  hal/regmap/nic.toml   register blocks, registers, fields
  linker/memmap.toml    instruction memory, SRAM and its regions, MMIO window

Outputs (into --out-dir unless given one by one):
  nic_regs.h      C and assembler constants (firmware, host driver, C models), including the
                  in-SRAM data layouts ([[layout]] tables: descriptor formats shared by hardware
                  and firmware)
  nic_regs.vh     Verilog `defines (RTL)
  nic_memmap.h    memory map constants for C and assembler
  nic_memmap.vh   memory map `defines for the RTL
  nic_memmap.ld   MEMORY regions and symbols for the firmware linker script
  registers.md    the documentation page (docs/registers.md is a checked copy)

Every problem in the sources is reported as "file: block.reg.field: message" and makes the
generator exit with status 1 without writing anything, so the build stops there.

Python 3.11 standard library only (tomllib).
"""

import argparse
import os
import re
import sys
import tomllib

ACCESS = ("ro", "rw", "wo", "w1c", "w1s")
SIDES = ("host", "core", "both")
BLOCK_SIZE = 0x1000
PAGE = 0x1000
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
PREFIX = "NIC"


class MapError(Exception):
    pass


def _err(where, msg):
    raise MapError(f"{where}: {msg}")


def _int(where, value):
    if isinstance(value, bool) or not isinstance(value, int):
        _err(where, f"expected an integer, got {value!r}")
    return value


def _name(where, value):
    if not isinstance(value, str) or not NAME_RE.match(value):
        _err(where, f"bad name {value!r} (lower case, digits, underscores; starts with a letter)")
    return value


def _parse_bits(where, text):
    """'7:0' or '5' -> (lsb, width); msb >= lsb, within 32 bits."""
    if not isinstance(text, str):
        _err(where, f"bits must be a string like \"7:0\" or \"3\", got {text!r}")
    m = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?", text)
    if not m:
        _err(where, f"bad bits {text!r}")
    msb = int(m.group(1))
    lsb = int(m.group(2)) if m.group(2) is not None else msb
    if msb < lsb:
        _err(where, f"bits {text!r}: msb below lsb")
    if msb > 31:
        _err(where, f"bits {text!r}: outside the 32-bit register")
    return lsb, msb - lsb + 1


def load_regmap(path):
    with open(path, "rb") as f:
        try:
            src = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise MapError(f"{path}: {e}") from None
    blocks = []
    seen_offsets = {}
    seen_names = set()
    for bi, b in enumerate(src.get("block", [])):
        where = f"block[{bi}]"
        name = _name(where, b.get("name"))
        where = name
        if name in seen_names:
            _err(where, "duplicate block name")
        seen_names.add(name)
        off = _int(where + ".offset", b.get("offset"))
        if off % BLOCK_SIZE:
            _err(where, f"offset 0x{off:x} is not a multiple of 0x{BLOCK_SIZE:x}")
        if off in seen_offsets:
            _err(where, f"offset 0x{off:x} overlaps block {seen_offsets[off]}")
        seen_offsets[off] = name
        ident = b.get("id")
        if not isinstance(ident, str) or len(ident) != 4 or not ident.isascii() or not ident.isprintable():
            _err(where + ".id", "must be four printable ASCII characters")
        id_value = int.from_bytes(ident.encode(), "big")
        version = _int(where + ".version", b.get("version"))
        if not 0 < version <= 0xFFFFFFFF:
            _err(where + ".version", "must be a nonzero 32-bit value")
        regs = [
            dict(name="id", offset=0x00, access="ro", side="both", reset=id_value,
                 doc=f"Block ID: \"{ident}\" (0x{id_value:08X}).", fields=[]),
            dict(name="version", offset=0x04, access="ro", side="both", reset=version,
                 doc=f"Block version {version >> 16}.{version & 0xFFFF} (major [31:16], minor [15:0]).",
                 fields=[]),
        ]
        by_name = {r["name"]: r for r in regs}
        for ri, r in enumerate(b.get("reg", [])):
            rwhere = f"{where}.reg[{ri}]"
            rname = _name(rwhere, r.get("name"))
            rwhere = f"{where}.{rname}"
            if rname in by_name:
                _err(rwhere, "duplicate register name (id and version are added by the generator)")
            roff = _int(rwhere + ".offset", r.get("offset"))
            if roff % 4 or not 0 <= roff < BLOCK_SIZE:
                _err(rwhere, f"offset 0x{roff:x} must be 4-byte aligned and inside the block")
            access = r.get("access")
            if access not in ACCESS:
                _err(rwhere, f"access {access!r} is not one of {', '.join(ACCESS)}")
            side = r.get("side", "both")
            if side not in SIDES:
                _err(rwhere, f"side {side!r} is not one of {', '.join(SIDES)}")
            reset = _int(rwhere + ".reset", r.get("reset", 0))
            if not 0 <= reset <= 0xFFFFFFFF:
                _err(rwhere, f"reset 0x{reset:x} does not fit 32 bits")
            doc = r.get("doc")
            if not isinstance(doc, str) or not doc.strip():
                _err(rwhere, "every register needs a doc string")
            fields = []
            if "fields_like" in r:
                if "field" in r:
                    _err(rwhere, "give either fields or fields_like, not both")
                other = by_name.get(r["fields_like"])
                if other is None:
                    _err(rwhere, f"fields_like {r['fields_like']!r} names no earlier register")
                fields = [dict(f) for f in other["fields"]]
            used = 0
            for fi, fd in enumerate(r.get("field", [])):
                fwhere = f"{rwhere}.field[{fi}]"
                fname = _name(fwhere, fd.get("name"))
                fwhere = f"{rwhere}.{fname}"
                if any(x["name"] == fname for x in fields):
                    _err(fwhere, "duplicate field name")
                lsb, width = _parse_bits(fwhere, fd.get("bits"))
                fdoc = fd.get("doc")
                if not isinstance(fdoc, str) or not fdoc.strip():
                    _err(fwhere, "every field needs a doc string")
                mask = ((1 << width) - 1) << lsb
                if used & mask:
                    _err(fwhere, f"bits {fd.get('bits')} overlap another field")
                used |= mask
                fields.append(dict(name=fname, lsb=lsb, width=width, doc=fdoc))
            for x in regs:
                if x["offset"] == roff:
                    _err(rwhere, f"offset 0x{roff:02x} overlaps register {x['name']}")
            if fields:
                allowed = 0
                for fd in fields:
                    allowed |= ((1 << fd["width"]) - 1) << fd["lsb"]
                if reset & ~allowed:
                    _err(rwhere, f"reset 0x{reset:x} sets bits outside every field")
            entry = dict(name=rname, offset=roff, access=access, side=side, reset=reset, doc=doc.strip(),
                         fields=fields)
            regs.append(entry)
            by_name[rname] = entry
        regs.sort(key=lambda x: x["offset"])
        doc = b.get("doc")
        if not isinstance(doc, str) or not doc.strip():
            _err(where, "every block needs a doc string")
        blocks.append(dict(name=name, offset=off, id=ident, id_value=id_value, version=version,
                           doc=doc.strip(), regs=regs))
    if not blocks:
        _err(path, "no blocks")
    blocks.sort(key=lambda x: x["offset"])
    return blocks


def load_layouts(path, blocks):
    """[[layout]] tables: in-SRAM structures hardware and firmware share (e.g. the MAC's RX
    descriptor). Each has a name, a size in bytes (multiple of 4), a doc string and 32-bit words
    at 4-byte aligned offsets inside the size, each with optional fields like a register's."""
    with open(path, "rb") as f:
        src = tomllib.load(f)
    taken = {b["name"] for b in blocks} | {"imem", "sram", "mmio", "block", "mmio_base"}
    layouts = []
    for li, lay in enumerate(src.get("layout", [])):
        where = _name(f"layout[{li}]", lay.get("name"))
        if where in taken:
            _err("layout." + where, "name collides with a block, memory-map or another layout name")
        taken.add(where)
        size = _int(where + ".size", lay.get("size"))
        if size <= 0 or size % 4 or size > BLOCK_SIZE:
            _err(where + ".size", f"{size} must be a positive multiple of 4 up to 0x{BLOCK_SIZE:x}")
        doc = lay.get("doc")
        if not isinstance(doc, str) or not doc.strip():
            _err(where, "every layout needs a doc string")
        words = []
        for wi, w in enumerate(lay.get("word", [])):
            wname = _name(f"{where}.word[{wi}]", w.get("name"))
            wwhere = f"{where}.{wname}"
            if any(x["name"] == wname for x in words) or wname == "size":
                _err(wwhere, "duplicate word name (or the reserved name 'size')")
            woff = _int(wwhere + ".offset", w.get("offset"))
            if woff % 4 or not 0 <= woff < size:
                _err(wwhere, f"offset 0x{woff:x} must be 4-byte aligned and inside the layout")
            if any(x["offset"] == woff for x in words):
                _err(wwhere, f"offset 0x{woff:x} overlaps another word")
            wdoc = w.get("doc")
            if not isinstance(wdoc, str) or not wdoc.strip():
                _err(wwhere, "every word needs a doc string")
            fields, used = [], 0
            for fi, fd in enumerate(w.get("field", [])):
                fname = _name(f"{wwhere}.field[{fi}]", fd.get("name"))
                fwhere = f"{wwhere}.{fname}"
                if any(x["name"] == fname for x in fields):
                    _err(fwhere, "duplicate field name")
                lsb, width = _parse_bits(fwhere, fd.get("bits"))
                fdoc = fd.get("doc")
                if not isinstance(fdoc, str) or not fdoc.strip():
                    _err(fwhere, "every field needs a doc string")
                mask = ((1 << width) - 1) << lsb
                if used & mask:
                    _err(fwhere, f"bits {fd.get('bits')} overlap another field")
                used |= mask
                fields.append(dict(name=fname, lsb=lsb, width=width, doc=fdoc))
            words.append(dict(name=wname, offset=woff, doc=wdoc.strip(), fields=fields))
        if not words:
            _err(where, "a layout needs at least one word")
        words.sort(key=lambda x: x["offset"])
        layouts.append(dict(name=where, size=size, doc=doc.strip(), words=words))
    return layouts


def load_memmap(path, blocks):
    with open(path, "rb") as f:
        try:
            src = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise MapError(f"{path}: {e}") from None
    mm = {}
    for key in ("imem", "sram", "mmio"):
        sec = src.get(key)
        if not isinstance(sec, dict):
            _err(key, "missing section")
        base = _int(key + ".base", sec.get("base"))
        size = _int(key + ".size", sec.get("size"))
        if base % PAGE or size % PAGE or size <= 0:
            _err(key, "base and size must be nonzero multiples of 4 KiB")
        if base + size > 1 << 32:
            _err(key, "does not fit the 32-bit address space")
        mm[key] = dict(base=base, size=size, doc=str(sec.get("doc", "")).strip())
    spans = sorted((mm[k]["base"], mm[k]["base"] + mm[k]["size"], k) for k in mm)
    for (b0, e0, k0), (b1, _e1, k1) in zip(spans, spans[1:]):
        if b1 < e0:
            _err(k1, f"overlaps {k0}")
    top = max(b["offset"] for b in blocks) + BLOCK_SIZE
    if top > mm["mmio"]["size"]:
        _err("mmio.size", f"0x{mm['mmio']['size']:x} is smaller than the register blocks (0x{top:x})")
    regions = []
    off = 0
    for i, r in enumerate(src.get("sram_region", [])):
        where = f"sram_region[{i}]"
        name = _name(where, r.get("name"))
        size = _int(f"sram_region.{name}.size", r.get("size"))
        if size <= 0 or size % PAGE:
            _err(f"sram_region.{name}", "size must be a nonzero multiple of 4 KiB")
        if any(x["name"] == name for x in regions):
            _err(f"sram_region.{name}", "duplicate region")
        regions.append(dict(name=name, offset=off, size=size, doc=str(r.get("doc", "")).strip()))
        off += size
    if off != mm["sram"]["size"]:
        _err("sram_region", f"regions add up to 0x{off:x} bytes but SRAM is 0x{mm['sram']['size']:x}")
    mm["regions"] = regions
    bars = []
    for i, b in enumerate(src.get("host_bar", [])):
        where = f"host_bar[{i}]"
        name = _name(where, b.get("name"))
        where = f"host_bar.{name}"
        index = _int(where + ".index", b.get("index"))
        code = _int(where + ".code", b.get("code"))
        size = _int(where + ".size", b.get("size"))
        if not 0 <= index <= 5:
            _err(where, f"index {index} is not a PCI BAR number (0..5)")
        if not 0 <= code <= 3:
            _err(where, f"code {code} does not fit host_req_bar (2 bits)")
        if size < PAGE or size > 1 << 24 or size & (size - 1):
            _err(where, "size must be a power of two from 4 KiB to 16 MiB (24 address bits)")
        for x in bars:
            if x["name"] == name or x["index"] == index or x["code"] == code:
                _err(where, f"name, index or code repeats host_bar.{x['name']}")
        bars.append(dict(name=name, index=index, code=code, size=size, doc=str(b.get("doc", "")).strip()))
    mm["bars"] = bars
    sq = src.get("sendq")
    region = next((r for r in regions if r["name"] == "sendq"), None)
    if sq is not None:
        stride = _int("sendq.stride", sq.get("stride"))
        if region is None:
            _err("sendq", "needs an sram_region named sendq")
        if stride < 64 or stride > PAGE or stride & (stride - 1):
            _err("sendq.stride", "must be a power of two from 64 to 4096 (one doorbell page)")
        if region["size"] % stride:
            _err("sendq.stride", "does not divide the sendq region")
        mm["sendq"] = dict(stride=stride, slots=region["size"] // stride)
    return mm


# ---------------------------------------------------------------------------------------------
# Emitters. Each returns the file's text; nothing is written until every emitter has run.

def _banner(comment, srcs):
    lines = [f"{comment} Generated by hal/gen/nicgen.py from {', '.join(srcs)}. Do not edit."]
    return "\n".join(lines) + "\n"


def _u(v):
    return f"NIC_U32(0x{v:08X})"


def emit_regs_h(blocks, mm, srcs, layouts=()):
    out = ["/*", _banner(" *", srcs).rstrip(), " *",
           " * NIC_<BLOCK>_BASE       core-view address of the block",
           " * NIC_<BLOCK>_OFFSET     offset of the block in the MMIO window / host BAR0",
           " * NIC_<BLOCK>_<REG>      byte offset of the register inside its block",
           " * NIC_<BLOCK>_<REG>_RESET, _<FIELD>_SHIFT, _<FIELD>_WIDTH, _<FIELD>_MASK (in place)",
           " * NIC_<BLOCK>_ID_VALUE, NIC_<BLOCK>_VERSION_VALUE, NIC_<BLOCK>_VERSION_MAJOR",
           " */",
           "#ifndef NIC_REGS_H", "#define NIC_REGS_H", "",
           "#if defined(__ASSEMBLER__)", "#define NIC_U32(x) x", "#else", "#define NIC_U32(x) x##u",
           "#endif", "",
           f"#ifndef {PREFIX}_MMIO_BASE /* nic_memmap.h defines it too */",
           f"#define {PREFIX}_MMIO_BASE {_u(mm['mmio']['base'])}",
           "#endif",
           f"#define {PREFIX}_BLOCK_SIZE {_u(BLOCK_SIZE)}",
           f"#define {PREFIX}_NUM_BLOCKS {len(blocks)}",
           f"#define {PREFIX}_BLOCK_ID {_u(0)} /* every block: ID register offset */",
           f"#define {PREFIX}_BLOCK_VERSION {_u(4)} /* every block: VERSION register offset */", ""]
    for b in blocks:
        B = f"{PREFIX}_{b['name'].upper()}"
        out.append(f"/* {b['name']}: {b['doc']} */")
        out.append(f"#define {B}_OFFSET {_u(b['offset'])}")
        out.append(f"#define {B}_BASE {_u(mm['mmio']['base'] + b['offset'])}")
        out.append(f"#define {B}_ID_VALUE {_u(b['id_value'])} /* \"{b['id']}\" */")
        out.append(f"#define {B}_VERSION_VALUE {_u(b['version'])}")
        out.append(f"#define {B}_VERSION_MAJOR {b['version'] >> 16}")
        for r in b["regs"]:
            R = f"{B}_{r['name'].upper()}"
            out.append(f"#define {R} {_u(r['offset'])} /* {r['access']}: {r['doc']} */")
            out.append(f"#define {R}_RESET {_u(r['reset'])}")
            for fd in r["fields"]:
                F = f"{R}_{fd['name'].upper()}"
                mask = ((1 << fd["width"]) - 1) << fd["lsb"]
                out.append(f"#define {F}_SHIFT {fd['lsb']}")
                out.append(f"#define {F}_WIDTH {fd['width']}")
                out.append(f"#define {F}_MASK {_u(mask)}")
        out.append("")
    for lay in layouts:
        L = f"{PREFIX}_{lay['name'].upper()}"
        out.append(f"/* layout {lay['name']} (in SRAM, little-endian words): {lay['doc']} */")
        out.append(f"#define {L}_SIZE {_u(lay['size'])}")
        for w in lay["words"]:
            W = f"{L}_{w['name'].upper()}"
            out.append(f"#define {W} {_u(w['offset'])} /* {w['doc']} */")
            for fd in w["fields"]:
                F = f"{W}_{fd['name'].upper()}"
                mask = ((1 << fd["width"]) - 1) << fd["lsb"]
                out.append(f"#define {F}_SHIFT {fd['lsb']}")
                out.append(f"#define {F}_WIDTH {fd['width']}")
                out.append(f"#define {F}_MASK {_u(mask)}")
        out.append("")
    out.append("#endif /* NIC_REGS_H */")
    return "\n".join(out) + "\n"


def _vh(v, width=32):
    return f"{width}'h{v:0{(width + 3) // 4}X}"


def emit_regs_vh(blocks, mm, srcs, layouts=()):
    out = [_banner("//", srcs).rstrip(),
           "// `NIC_<BLOCK>_OFFSET (32-bit), `NIC_<BLOCK>_<REG> (12-bit offset in the block),",
           "// `NIC_<BLOCK>_<REG>_RESET, `NIC_<BLOCK>_<REG>_<FIELD>_LSB/_WIDTH/_MSB.",
           "`ifndef NIC_REGS_VH", "`define NIC_REGS_VH", "",
           f"`define {PREFIX}_MMIO_BASE {_vh(mm['mmio']['base'])}",
           f"`define {PREFIX}_BLOCK_BITS 12", ""]
    for b in blocks:
        B = f"{PREFIX}_{b['name'].upper()}"
        out.append(f"// {b['name']}: {b['doc']}")
        out.append(f"`define {B}_OFFSET {_vh(b['offset'])}")
        out.append(f"`define {B}_ID_VALUE {_vh(b['id_value'])}")
        out.append(f"`define {B}_VERSION_VALUE {_vh(b['version'])}")
        for r in b["regs"]:
            R = f"{B}_{r['name'].upper()}"
            out.append(f"`define {R} {_vh(r['offset'], 12)}")
            out.append(f"`define {R}_RESET {_vh(r['reset'])}")
            for fd in r["fields"]:
                F = f"{R}_{fd['name'].upper()}"
                out.append(f"`define {F}_LSB {fd['lsb']}")
                out.append(f"`define {F}_WIDTH {fd['width']}")
                out.append(f"`define {F}_MSB {fd['lsb'] + fd['width'] - 1}")
        out.append("")
    for lay in layouts:
        L = f"{PREFIX}_{lay['name'].upper()}"
        out.append(f"// layout {lay['name']} (in SRAM): {lay['doc']}")
        out.append(f"`define {L}_SIZE {_vh(lay['size'])}")
        for w in lay["words"]:
            W = f"{L}_{w['name'].upper()}"
            out.append(f"`define {W} {_vh(w['offset'], 12)}")
            for fd in w["fields"]:
                F = f"{W}_{fd['name'].upper()}"
                out.append(f"`define {F}_LSB {fd['lsb']}")
                out.append(f"`define {F}_WIDTH {fd['width']}")
                out.append(f"`define {F}_MSB {fd['lsb'] + fd['width'] - 1}")
        out.append("")
    out.append("`endif // NIC_REGS_VH")
    return "\n".join(out) + "\n"


def _mm_items(mm):
    """(NAME, value, doc) for every memory-map constant, in a fixed order."""
    items = []
    for key in ("imem", "sram", "mmio"):
        items.append((f"{key.upper()}_BASE", mm[key]["base"], mm[key]["doc"]))
        items.append((f"{key.upper()}_SIZE", mm[key]["size"], ""))
    for r in mm["regions"]:
        n = f"SRAM_{r['name'].upper()}"
        items.append((f"{n}_OFFSET", r["offset"], r["doc"]))
        items.append((f"{n}_BASE", mm["sram"]["base"] + r["offset"], ""))
        items.append((f"{n}_SIZE", r["size"], ""))
    if "sendq" in mm:
        items.append(("SENDQ_STRIDE", mm["sendq"]["stride"], "send queue bytes per endpoint"))
        items.append(("SENDQ_SLOTS", mm["sendq"]["slots"], "endpoints with a send queue"))
    for b in mm["bars"]:
        n = f"BAR_{b['name'].upper()}"
        items.append((f"{n}_INDEX", b["index"], b["doc"]))
        items.append((f"{n}_CODE", b["code"], ""))
        items.append((f"{n}_SIZE", b["size"], ""))
    return items


def emit_memmap_h(mm, srcs):
    out = ["/*", _banner(" *", srcs).rstrip(), " */", "#ifndef NIC_MEMMAP_H", "#define NIC_MEMMAP_H", "",
           "#if defined(__ASSEMBLER__)", "#define NIC_MM_U32(x) x", "#else", "#define NIC_MM_U32(x) x##u",
           "#endif", ""]
    for name, value, doc in _mm_items(mm):
        comment = f" /* {doc} */" if doc else ""
        if name == "MMIO_BASE":   # nic_regs.h defines it too: both headers may be included
            out.append("#ifndef NIC_MMIO_BASE")
        out.append(f"#define NIC_{name} NIC_MM_U32(0x{value:08X}){comment}")
        if name == "MMIO_BASE":
            out.append("#endif")
    out += ["", "#endif /* NIC_MEMMAP_H */"]
    return "\n".join(out) + "\n"


def emit_memmap_vh(mm, srcs):
    out = [_banner("//", srcs).rstrip(), "`ifndef NIC_MEMMAP_VH", "`define NIC_MEMMAP_VH", ""]
    for name, value, _doc in _mm_items(mm):
        out.append(f"`define NIC_{name} {_vh(value)}")
    out += ["", "`endif // NIC_MEMMAP_VH"]
    return "\n".join(out) + "\n"


def emit_memmap_ld(mm, srcs):
    out = ["/*", _banner(" *", srcs).rstrip(), " */", "MEMORY", "{"]
    out.append(f"  IMEM (rx) : ORIGIN = 0x{mm['imem']['base']:08X}, LENGTH = 0x{mm['imem']['size']:X}")
    for r in mm["regions"]:
        out.append(f"  SRAM_{r['name'].upper()} (rw) : ORIGIN = 0x{mm['sram']['base'] + r['offset']:08X},"
                   f" LENGTH = 0x{r['size']:X}")
    out.append("}")
    out.append("")
    for name, value, _doc in _mm_items(mm):
        out.append(f"__nic_{name.lower()} = 0x{value:08X};")
    return "\n".join(out) + "\n"


def _access_doc(a):
    return {"ro": "RO", "rw": "RW", "wo": "WO", "w1c": "W1C", "w1s": "W1S"}[a]


def emit_markdown(blocks, mm, srcs, layouts=()):
    out = ["# NIC register map and memory map", "",
           f"Generated by `hal/gen/nicgen.py` from {', '.join(f'`{s}`' for s in srcs)}; do not edit by hand.",
           "Regenerate with `cmake --build build --target update-docs`; the test `regmap.docs_fresh`",
           "fails while this page and the sources disagree.", "",
           "## Memory map (core view)", "",
           "| region | base | size | purpose |", "|---|---|---|---|"]
    for key in ("imem", "sram", "mmio"):
        out.append(f"| {key} | `0x{mm[key]['base']:08X}` | {mm[key]['size'] // 1024} KiB | {mm[key]['doc']} |")
    out += ["", "### NIC SRAM regions", "", "| region | address | size | purpose |", "|---|---|---|---|"]
    for r in mm["regions"]:
        out.append(f"| {r['name']} | `0x{mm['sram']['base'] + r['offset']:08X}` | {r['size'] // 1024} KiB"
                   f" | {r['doc']} |")
    out += ["", "### Host BARs", "", "| BAR | name | host_req_bar code | size | purpose |", "|---|---|---|---|---|"]
    for b in mm["bars"]:
        out.append(f"| {b['index']} | {b['name']} | {b['code']} | {b['size'] // 1024} KiB | {b['doc']} |")
    out += ["", "## Register blocks", "",
            f"Each block is a 4 KiB window at `0x{mm['mmio']['base']:08X} + offset` for the core and at",
            "`BAR0 + offset` for the host, and starts with its ID and VERSION registers.", "",
            "| block | offset | ID | version | purpose |", "|---|---|---|---|---|"]
    for b in blocks:
        out.append(f"| [{b['name']}](#{b['name']}) | `0x{b['offset']:04X}` | `{b['id']}` |"
                   f" {b['version'] >> 16}.{b['version'] & 0xFFFF} | {b['doc']} |")
    for b in blocks:
        out += ["", f"### {b['name']}", "", b["doc"], "",
                "| offset | register | access | writer | reset | description |", "|---|---|---|---|---|---|"]
        for r in b["regs"]:
            out.append(f"| `0x{r['offset']:03X}` | `{r['name']}` | {_access_doc(r['access'])} | {r['side']} |"
                       f" `0x{r['reset']:08X}` | {r['doc']} |")
        for r in b["regs"]:
            if not r["fields"]:
                continue
            out += ["", f"`{b['name']}.{r['name']}` fields:", "", "| bits | field | description |", "|---|---|---|"]
            for fd in sorted(r["fields"], key=lambda x: -x["lsb"]):
                msb = fd["lsb"] + fd["width"] - 1
                bits = f"{msb}:{fd['lsb']}" if fd["width"] > 1 else f"{fd['lsb']}"
                out.append(f"| {bits} | `{fd['name']}` | {fd['doc']} |")
    if layouts:
        out += ["", "## In-memory layouts", "",
                "Structures in NIC SRAM that hardware and firmware share; words are little-endian.",
                "C: `NIC_<LAYOUT>_SIZE`, `NIC_<LAYOUT>_<WORD>` (byte offset), `_<FIELD>_SHIFT/_MASK`."]
    for lay in layouts:
        out += ["", f"### {lay['name']}", "", f"{lay['doc']} Size: {lay['size']} bytes.", "",
                "| offset | word | description |", "|---|---|---|"]
        for w in lay["words"]:
            out.append(f"| `0x{w['offset']:02X}` | `{w['name']}` | {w['doc']} |")
        for w in lay["words"]:
            if not w["fields"]:
                continue
            out += ["", f"`{lay['name']}.{w['name']}` fields:", "", "| bits | field | description |", "|---|---|---|"]
            for fd in sorted(w["fields"], key=lambda x: -x["lsb"]):
                msb = fd["lsb"] + fd["width"] - 1
                bits = f"{msb}:{fd['lsb']}" if fd["width"] > 1 else f"{fd['lsb']}"
                out.append(f"| {bits} | `{fd['name']}` | {fd['doc']} |")
    return "\n".join(out) + "\n"


def _write_if_changed(path, text):
    """Keep timestamps stable when nothing changed, so the build does not redo dependants."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--regmap", required=True, help="register map source (TOML)")
    ap.add_argument("--memmap", required=True, help="memory map source (TOML)")
    ap.add_argument("--out-dir", required=True, help="directory for the generated files")
    ap.add_argument("--src-root", default=None, help="print source paths relative to this directory")
    ap.add_argument("--check-only", action="store_true", help="validate the sources, write nothing")
    args = ap.parse_args(argv)

    def rel(p):
        return os.path.relpath(p, args.src_root) if args.src_root else os.path.basename(p)

    srcs = [rel(args.regmap), rel(args.memmap)]
    try:
        blocks = load_regmap(args.regmap)
        mm = load_memmap(args.memmap, blocks)
        layouts = load_layouts(args.regmap, blocks)
    except MapError as e:
        print(f"nicgen: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"nicgen: error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    outputs = {
        "nic_regs.h": emit_regs_h(blocks, mm, srcs, layouts),
        "nic_regs.vh": emit_regs_vh(blocks, mm, srcs, layouts),
        "nic_memmap.h": emit_memmap_h(mm, srcs),
        "nic_memmap.vh": emit_memmap_vh(mm, srcs),
        "nic_memmap.ld": emit_memmap_ld(mm, srcs),
        "registers.md": emit_markdown(blocks, mm, srcs, layouts),
    }
    if args.check_only:
        return 0
    os.makedirs(args.out_dir, exist_ok=True)
    for name, text in outputs.items():
        _write_if_changed(os.path.join(args.out_dir, name), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
