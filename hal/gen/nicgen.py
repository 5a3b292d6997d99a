#!/usr/bin/env python3
"""nicgen: generate the NIC's register map and memory map artefacts from their one source.

Inputs (TOML, the single source of truth):
  hal/regmap/nic.toml   register blocks, registers, fields and their enumerated values, layouts
  linker/memmap.toml    instruction memory, SRAM and its regions, MMIO window, host BARs (and
                        the doorbell BAR's page size), send queue stride

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
generator exit with status 1 without writing anything, so the build stops there. Unknown keys
in any table are errors too (a misspelt key would otherwise be silently nothing).

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


FIELD_KEYS = {"name", "bits", "doc", "value"}
VALUE_KEYS = {"name", "value", "doc"}
# names the generator derives from a field's: a value may not take them
FIELD_SUFFIXES = {"shift", "width", "mask", "lsb", "msb"}


def _table(where, value):
    if not isinstance(value, dict):
        _err(where, f"expected a table, got {value!r}")
    return value


def _keys(where, table, allowed):
    """Every key of a source table must be one the generator knows: a misspelt key (a field's
    `valeu`, a register's `feild`) is an error, not silently nothing."""
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        _err(where, f"unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})")


def _list(where, value):
    if value is None:
        return []
    if not isinstance(value, list):
        _err(where, f"expected an array of tables, got {value!r}")
    return value


def _doc(where, value, what):
    if not isinstance(value, str) or not value.strip():
        _err(where, f"every {what} needs a doc string")
    return value.strip()


def _parse_values(fwhere, items, width):
    """A field's enumerated values ([[...field.value]]: name, value, doc): names unique and not a
    generated suffix, values unique and inside the field's width."""
    values = []
    for vi, v in enumerate(_list(fwhere + ".value", items)):
        _table(f"{fwhere}.value[{vi}]", v)
        vname = _name(f"{fwhere}.value[{vi}]", v.get("name"))
        vwhere = f"{fwhere}.{vname}"
        _keys(vwhere, v, VALUE_KEYS)
        if vname in FIELD_SUFFIXES:
            _err(vwhere, f"value name {vname!r} is reserved (the generator derives _{vname.upper()} from the field)")
        if any(x["name"] == vname for x in values):
            _err(vwhere, "duplicate value name")
        val = _int(vwhere + ".value", v.get("value"))
        if not 0 <= val < 1 << width:
            _err(vwhere, f"value {val} does not fit the field's {width} bit{'s' if width > 1 else ''}")
        other = next((x for x in values if x["value"] == val), None)
        if other is not None:
            _err(vwhere, f"value {val} repeats value {other['name']}")
        values.append(dict(name=vname, value=val, doc=_doc(vwhere, v.get("doc"), "value")))
    return values


def _parse_fields(where, items):
    """[[...field]] tables of a register or layout word: name, bits, doc, optional values."""
    fields, used = [], 0
    for fi, fd in enumerate(_list(where + ".field", items)):
        _table(f"{where}.field[{fi}]", fd)
        fname = _name(f"{where}.field[{fi}]", fd.get("name"))
        fwhere = f"{where}.{fname}"
        _keys(fwhere, fd, FIELD_KEYS)
        if any(x["name"] == fname for x in fields):
            _err(fwhere, "duplicate field name")
        lsb, width = _parse_bits(fwhere, fd.get("bits"))
        fdoc = _doc(fwhere, fd.get("doc"), "field")
        mask = ((1 << width) - 1) << lsb
        if used & mask:
            _err(fwhere, f"bits {fd.get('bits')} overlap another field")
        used |= mask
        values = _parse_values(fwhere, fd.get("value"), width)
        fields.append(dict(name=fname, lsb=lsb, width=width, doc=fdoc, values=values))
    return fields


def _check_reset_values(where, reset, fields):
    """A field with enumerated values must reset to one of them."""
    for fd in fields:
        if not fd["values"]:
            continue
        fv = (reset >> fd["lsb"]) & ((1 << fd["width"]) - 1)
        if all(v["value"] != fv for v in fd["values"]):
            _err(f"{where}.{fd['name']}", f"reset value {fv} of the field is none of its values")


REGMAP_KEYS = {"block", "layout"}
BLOCK_KEYS = {"name", "offset", "id", "version", "doc", "reg"}
REG_KEYS = {"name", "offset", "access", "side", "reset", "doc", "field", "fields_like"}
LAYOUT_KEYS = {"name", "size", "bar_page", "doc", "word"}
WORD_KEYS = {"name", "offset", "doc", "field"}


def load_regmap(path):
    with open(path, "rb") as f:
        try:
            src = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise MapError(f"{path}: {e}") from None
    _keys(os.path.basename(path), src, REGMAP_KEYS)
    blocks = []
    seen_offsets = {}
    seen_names = set()
    for bi, b in enumerate(_list("block", src.get("block"))):
        where = f"block[{bi}]"
        _table(where, b)
        name = _name(where, b.get("name"))
        where = name
        _keys(where, b, BLOCK_KEYS)
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
        for ri, r in enumerate(_list(where + ".reg", b.get("reg"))):
            rwhere = f"{where}.reg[{ri}]"
            _table(rwhere, r)
            rname = _name(rwhere, r.get("name"))
            rwhere = f"{where}.{rname}"
            _keys(rwhere, r, REG_KEYS)
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
            fields += _parse_fields(rwhere, r.get("field"))
            for x in regs:
                if x["offset"] == roff:
                    _err(rwhere, f"offset 0x{roff:02x} overlaps register {x['name']}")
            if fields:
                allowed = 0
                for fd in fields:
                    allowed |= ((1 << fd["width"]) - 1) << fd["lsb"]
                if reset & ~allowed:
                    _err(rwhere, f"reset 0x{reset:x} sets bits outside every field")
                _check_reset_values(rwhere, reset, fields)
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


def load_layouts(path, blocks, mm):
    """[[layout]] tables: in-SRAM structures hardware and firmware share (e.g. the MAC's RX
    descriptor). Each has a name, a size in bytes (multiple of 4) or `bar_page` (the layout is one
    page of that host BAR, linker/memmap.toml: its size is the page's), a doc string and 32-bit
    words at 4-byte aligned offsets inside the size, each with optional fields like a register's."""
    with open(path, "rb") as f:
        src = tomllib.load(f)
    taken = {b["name"] for b in blocks} | {"imem", "sram", "mmio", "block", "mmio_base"}
    layouts = []
    for li, lay in enumerate(_list("layout", src.get("layout"))):
        _table(f"layout[{li}]", lay)
        where = _name(f"layout[{li}]", lay.get("name"))
        _keys(where, lay, LAYOUT_KEYS)
        if where in taken:
            _err("layout." + where, "name collides with a block, memory-map or another layout name")
        taken.add(where)
        bar = None
        if "bar_page" in lay:
            if "size" in lay:
                _err(where, "give either size or bar_page, not both")
            bar = next((b for b in mm["bars"] if b["name"] == lay["bar_page"]), None)
            if bar is None or "page" not in bar:
                _err(where + ".bar_page", f"{lay['bar_page']!r} names no host_bar with a page size")
            size = bar["page"]
        else:
            size = _int(where + ".size", lay.get("size"))
        if size <= 0 or size % 4 or size > BLOCK_SIZE:
            _err(where + ".size", f"{size} must be a positive multiple of 4 up to 0x{BLOCK_SIZE:x}")
        doc = _doc(where, lay.get("doc"), "layout")
        words = []
        for wi, w in enumerate(_list(where + ".word", lay.get("word"))):
            _table(f"{where}.word[{wi}]", w)
            wname = _name(f"{where}.word[{wi}]", w.get("name"))
            wwhere = f"{where}.{wname}"
            _keys(wwhere, w, WORD_KEYS)
            if any(x["name"] == wname for x in words) or wname in ("size", "words"):
                _err(wwhere, "duplicate word name (or the reserved name 'size' or 'words')")
            woff = _int(wwhere + ".offset", w.get("offset"))
            if woff % 4 or not 0 <= woff < size:
                _err(wwhere, f"offset 0x{woff:x} must be 4-byte aligned and inside the layout")
            if any(x["offset"] == woff for x in words):
                _err(wwhere, f"offset 0x{woff:x} overlaps another word")
            if bar is not None and bar["name"] == "doorbell" and "sendq" in mm and woff < mm["sendq"]["stride"]:
                _err(wwhere, f"offset 0x{woff:x} lies in the send queue window [0, sendq.stride = "
                             f"0x{mm['sendq']['stride']:x}) of the doorbell page")
            wdoc = _doc(wwhere, w.get("doc"), "word")
            fields = _parse_fields(wwhere, w.get("field"))
            words.append(dict(name=wname, offset=woff, doc=wdoc, fields=fields))
        if not words:
            _err(where, "a layout needs at least one word")
        words.sort(key=lambda x: x["offset"])
        layouts.append(dict(name=where, size=size, bar=bar["name"] if bar else None, doc=doc, words=words))
    return layouts


MEMMAP_KEYS = {"imem", "sram", "mmio", "sram_region", "sendq", "host_bar"}


def load_memmap(path, blocks):
    with open(path, "rb") as f:
        try:
            src = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise MapError(f"{path}: {e}") from None
    _keys(os.path.basename(path), src, MEMMAP_KEYS)
    mm = {}
    for key in ("imem", "sram", "mmio"):
        sec = src.get(key)
        if not isinstance(sec, dict):
            _err(key, "missing section")
        _keys(key, sec, {"base", "size", "doc"})
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
    for i, r in enumerate(_list("sram_region", src.get("sram_region"))):
        where = f"sram_region[{i}]"
        _table(where, r)
        name = _name(where, r.get("name"))
        _keys(f"sram_region.{name}", r, {"name", "size", "doc"})
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
    for i, b in enumerate(_list("host_bar", src.get("host_bar"))):
        where = f"host_bar[{i}]"
        _table(where, b)
        name = _name(where, b.get("name"))
        where = f"host_bar.{name}"
        _keys(where, b, {"name", "index", "code", "size", "page", "doc"})
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
        bar = dict(name=name, index=index, code=code, size=size, doc=str(b.get("doc", "")).strip())
        if "page" in b:   # the BAR is cut into pages (doorbell pages: one per process)
            page = _int(where + ".page", b.get("page"))
            if page < 64 or page > size or page & (page - 1):
                _err(where + ".page", f"0x{page:x} must be a power of two from 64 bytes to the BAR's size")
            bar.update(page=page, page_bits=page.bit_length() - 1, pages=size // page)
        bars.append(bar)
    mm["bars"] = bars
    sq = src.get("sendq")
    region = next((r for r in regions if r["name"] == "sendq"), None)
    if sq is not None:
        _keys("sendq", _table("sendq", sq), {"stride"})
        stride = _int("sendq.stride", sq.get("stride"))
        if region is None:
            _err("sendq", "needs an sram_region named sendq")
        dbbar = next((x for x in bars if x["name"] == "doorbell" and "page" in x), None)
        if dbbar is None:
            _err("sendq", "needs a host_bar named doorbell with a page size (the send queues are behind its pages)")
        if stride < 64 or stride >= dbbar["page"] or stride & (stride - 1):
            _err("sendq.stride", f"must be a power of two from 64 to below the doorbell page (0x{dbbar['page']:x}):"
                                 " the page's doorbell registers follow the send queue window")
        if region["size"] % stride:
            _err("sendq.stride", "does not divide the sendq region")
        mm["sendq"] = dict(stride=stride, slots=region["size"] // stride)
    return mm


def check_doorbell(blocks, mm):
    """The doorbell block reports where a doorbell was written (head_src: offset in the page, page):
    its fields must cut an address where host_bar.doorbell's pages do, and hold every page."""
    bar = next((b for b in mm["bars"] if b["name"] == "doorbell" and "page" in b), None)
    blk = next((b for b in blocks if b["name"] == "doorbell"), None)
    if bar is None or blk is None:
        return
    reg = next((r for r in blk["regs"] if r["name"] == "head_src"), None)
    fields = {f["name"]: f for f in (reg["fields"] if reg else [])}
    if "offset" not in fields or "page" not in fields:
        _err("doorbell.head_src", "needs the fields offset and page (host_bar.doorbell has pages)")
    off, pg = fields["offset"], fields["page"]
    if off["lsb"] != 0 or off["width"] != bar["page_bits"]:
        _err("doorbell.head_src.offset", f"must be bits {bar['page_bits'] - 1}:0, the offset inside a"
                                         f" 0x{bar['page']:x}-byte doorbell page (host_bar.doorbell.page)")
    if pg["lsb"] != bar["page_bits"] or bar["pages"] > 1 << pg["width"]:
        _err("doorbell.head_src.page", f"must start at bit {bar['page_bits']} and hold {bar['pages']} pages"
                                       " (host_bar.doorbell size / page)")


def check_unique_names(outputs):
    """Every generated name is defined once across the C headers and across the Verilog includes:
    names are built by joining source names with underscores (block_reg + field, field + value),
    so two different source paths can meet in one name; that is an error, not a silent override."""
    for files, pat in ((("nic_regs.h", "nic_memmap.h"), r"^#define (NIC_\w+) "),
                       (("nic_regs.vh", "nic_memmap.vh"), r"^`define (NIC_\w+) ")):
        seen = {}
        for fname in files:
            for m in re.finditer(pat, outputs[fname], re.M):
                name = m.group(1)
                if name == "NIC_MMIO_BASE":   # deliberately in both files (guarded in C)
                    continue
                if name in seen:
                    _err(name, f"generated twice ({seen[name]} and {fname}): two source names meet here;"
                               " rename one")
                seen[name] = fname


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
           " * NIC_<BLOCK>_<REG>_<FIELD>_<VALUE>  an enumerated field value (not shifted: nic_bits/nic_field)",
           " * NIC_<BLOCK>_ID_VALUE, NIC_<BLOCK>_VERSION_VALUE, NIC_<BLOCK>_VERSION_MAJOR",
           " * NIC_<LAYOUT>_SIZE, _WORDS, NIC_<LAYOUT>_<WORD> (byte offset), _<WORD>_IDX (word index)",
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
                for v in fd["values"]:
                    out.append(f"#define {F}_{v['name'].upper()} {_u(v['value'])} /* {v['doc']} */")
        out.append("")
    for lay in layouts:
        L = f"{PREFIX}_{lay['name'].upper()}"
        out.append(f"/* layout {lay['name']} (in SRAM, little-endian words): {lay['doc']} */")
        out.append(f"#define {L}_SIZE {_u(lay['size'])}")
        out.append(f"#define {L}_WORDS {lay['size'] // 4} /* 32-bit words per {lay['name']} */")
        for w in lay["words"]:
            W = f"{L}_{w['name'].upper()}"
            out.append(f"#define {W} {_u(w['offset'])} /* {w['doc']} */")
            out.append(f"#define {W}_IDX {w['offset'] // 4} /* index of the word in a uint32_t[{L}_WORDS] */")
            for fd in w["fields"]:
                F = f"{W}_{fd['name'].upper()}"
                mask = ((1 << fd["width"]) - 1) << fd["lsb"]
                out.append(f"#define {F}_SHIFT {fd['lsb']}")
                out.append(f"#define {F}_WIDTH {fd['width']}")
                out.append(f"#define {F}_MASK {_u(mask)}")
                for v in fd["values"]:
                    out.append(f"#define {F}_{v['name'].upper()} {_u(v['value'])} /* {v['doc']} */")
        out.append("")
    out.append("#endif /* NIC_REGS_H */")
    return "\n".join(out) + "\n"


def _vh(v, width=32):
    return f"{width}'h{v:0{(width + 3) // 4}X}"


def emit_regs_vh(blocks, mm, srcs, layouts=()):
    out = [_banner("//", srcs).rstrip(),
           "// `NIC_<BLOCK>_OFFSET (32-bit), `NIC_<BLOCK>_<REG> (12-bit offset in the block),",
           "// `NIC_<BLOCK>_<REG>_RESET, `NIC_<BLOCK>_<REG>_<FIELD>_LSB/_WIDTH/_MSB,",
           "// `NIC_<BLOCK>_<REG>_<FIELD>_<VALUE> (an enumerated value, the field's width).",
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
                for v in fd["values"]:
                    out.append(f"`define {F}_{v['name'].upper()} {_vh(v['value'], fd['width'])}")
        out.append("")
    for lay in layouts:
        L = f"{PREFIX}_{lay['name'].upper()}"
        out.append(f"// layout {lay['name']} (in SRAM): {lay['doc']}")
        out.append(f"`define {L}_SIZE {_vh(lay['size'])}")
        out.append(f"`define {L}_WORDS {lay['size'] // 4}")
        for w in lay["words"]:
            W = f"{L}_{w['name'].upper()}"
            out.append(f"`define {W} {_vh(w['offset'], 12)}")
            out.append(f"`define {W}_IDX {w['offset'] // 4}")
            for fd in w["fields"]:
                F = f"{W}_{fd['name'].upper()}"
                out.append(f"`define {F}_LSB {fd['lsb']}")
                out.append(f"`define {F}_WIDTH {fd['width']}")
                out.append(f"`define {F}_MSB {fd['lsb'] + fd['width'] - 1}")
                for v in fd["values"]:
                    out.append(f"`define {F}_{v['name'].upper()} {_vh(v['value'], fd['width'])}")
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
        if "page" in b:
            items.append((f"{n}_PAGE", b["page"], "bytes per page"))
            items.append((f"{n}_PAGE_BITS", b["page_bits"], "log2 of the page: the offset bits of an address"))
            items.append((f"{n}_PAGES", b["pages"], "pages in the BAR"))
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


def _md_values(prefix, fields):
    out = []
    for fd in sorted(fields, key=lambda x: -x["lsb"]):
        if not fd["values"]:
            continue
        out += ["", f"`{prefix}.{fd['name']}` values:", "", "| value | name | description |", "|---|---|---|"]
        for v in sorted(fd["values"], key=lambda x: x["value"]):
            out.append(f"| {v['value']} | `{v['name']}` | {v['doc']} |")
    return out


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
    out += ["", "### Host BARs", "", "| BAR | name | host_req_bar code | size | page | purpose |",
            "|---|---|---|---|---|---|"]
    for b in mm["bars"]:
        page = f"{b['page'] // 1024} KiB ({b['pages']} pages)" if "page" in b else "-"
        out.append(f"| {b['index']} | {b['name']} | {b['code']} | {b['size'] // 1024} KiB | {page} | {b['doc']} |")
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
            out += _md_values(f"{b['name']}.{r['name']}", r["fields"])
    if layouts:
        out += ["", "## In-memory layouts", "",
                "Structures in NIC SRAM that hardware and firmware share; words are little-endian.",
                "C: `NIC_<LAYOUT>_SIZE`, `NIC_<LAYOUT>_WORDS`, `NIC_<LAYOUT>_<WORD>` (byte offset),",
                "`NIC_<LAYOUT>_<WORD>_IDX` (word index), `_<FIELD>_SHIFT/_MASK`, `_<FIELD>_<VALUE>`."]
    for lay in layouts:
        size = f"{lay['size']} bytes" + (f" (one page of host_bar {lay['bar']})" if lay["bar"] else "")
        out += ["", f"### {lay['name']}", "", f"{lay['doc']} Size: {size}.", "",
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
            out += _md_values(f"{lay['name']}.{w['name']}", w["fields"])
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
        layouts = load_layouts(args.regmap, blocks, mm)
        check_doorbell(blocks, mm)
        outputs = {
            "nic_regs.h": emit_regs_h(blocks, mm, srcs, layouts),
            "nic_regs.vh": emit_regs_vh(blocks, mm, srcs, layouts),
            "nic_memmap.h": emit_memmap_h(mm, srcs),
            "nic_memmap.vh": emit_memmap_vh(mm, srcs),
            "nic_memmap.ld": emit_memmap_ld(mm, srcs),
            "registers.md": emit_markdown(blocks, mm, srcs, layouts),
        }
        check_unique_names(outputs)
    except MapError as e:
        print(f"nicgen: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"nicgen: error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    if args.check_only:
        return 0
    os.makedirs(args.out_dir, exist_ok=True)
    for name, text in outputs.items():
        _write_if_changed(os.path.join(args.out_dir, name), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
