-- ncp.lua: Wireshark/tshark dissector for the NCP wire header (docs/wire-protocol.md,
-- firmware/lib/pkt.h), for captures written by `nicsim --pcap` / `nicrun --pcap`
-- (link type LINKTYPE_USER0 = 147; each record is a frame as a NIC handed it to the switch:
-- 48-byte header, payload, 4-byte FCS).
--
--   wireshark -X lua_script:tools/wireshark/ncp.lua run.pcap
--   tshark -X lua_script:tools/wireshark/ncp.lua -r run.pcap -T fields -e nicncp.type -e nicncp.seq
--
-- Byte order: dst and src (bytes 0-3) are big-endian (the switch routes on dst); every other
-- multi-byte field is little-endian. Word 11 (offset 44) is xlen for WRITE / READ_REQ and the
-- status (enum nic_status, signed) for a NACK or a VOID READ_RESP: both fields are shown where
-- the type makes one of them meaningful.

-- "ncp" is taken: Wireshark ships Novell's NetWare Core Protocol under that name (fields ncp.*),
-- so this protocol and its fields are "nicncp" (nicncp.type, nicncp.seq, ...).
local ncp = Proto("nicncp", "NIC NCP wire protocol")

local types = { [1] = "WRITE", [2] = "READ_REQ", [3] = "READ_RESP", [4] = "ACK", [5] = "NACK" }
local reasons = { [1] = "GAP", [2] = "MISS", [3] = "PROTECTION", [4] = "MALFORMED", [5] = "BUSY",
                  [6] = "RESUME" }

local f = ncp.fields
f.dst = ProtoField.uint16("nicncp.dst", "Destination node", base.DEC)
f.src = ProtoField.uint16("nicncp.src", "Source node", base.DEC)
f.type = ProtoField.uint8("nicncp.type", "Type", base.DEC, types)
f.flags = ProtoField.uint8("nicncp.flags", "Flags", base.HEX)
f.flag_resync = ProtoField.bool("nicncp.flags.resync", "RESYNC", 8, nil, 0x01)
f.flag_last = ProtoField.bool("nicncp.flags.last", "LAST", 8, nil, 0x02)
f.flag_void = ProtoField.bool("nicncp.flags.void", "VOID", 8, nil, 0x04)
f.len = ProtoField.uint16("nicncp.len", "Payload length", base.DEC)
f.seq = ProtoField.uint32("nicncp.seq", "Sequence", base.DEC)
f.ack = ProtoField.uint32("nicncp.ack", "Cumulative ACK", base.DEC)
f.op = ProtoField.uint32("nicncp.op", "Operation id", base.HEX)
f.op_slot = ProtoField.uint32("nicncp.op.slot", "Op slot", base.DEC, nil, 0x0000003F)
f.op_gen = ProtoField.uint32("nicncp.op.gen", "Op generation", base.DEC, nil, 0xFFFFFFC0)
f.pid = ProtoField.uint16("nicncp.pid", "Target process", base.DEC)
f.reason = ProtoField.uint16("nicncp.reason", "NACK reason", base.DEC, reasons)
f.buf = ProtoField.uint32("nicncp.buf", "Buffer id", base.HEX)
f.key = ProtoField.uint32("nicncp.key", "Remote key", base.HEX)
f.token = ProtoField.uint32("nicncp.token", "Connection token", base.HEX)
f.off = ProtoField.uint64("nicncp.off", "Offset", base.DEC)
f.xlen = ProtoField.uint32("nicncp.xlen", "Xlen (read length / segment offset)", base.DEC)
f.status = ProtoField.int32("nicncp.status", "Status (enum nic_status)", base.DEC)
f.payload = ProtoField.bytes("nicncp.payload", "Payload")
f.fcs = ProtoField.uint32("nicncp.fcs", "FCS (CRC-32)", base.HEX)

local HDR = 48

function ncp.dissector(tvb, pinfo, tree)
    if tvb:len() < HDR then
        return 0
    end
    pinfo.cols.protocol = "NICNCP"
    local t = tree:add(ncp, tvb(0, HDR), "NCP header")
    local ty = tvb(4, 1):uint()
    local plen = tvb(6, 2):le_uint()
    t:add(f.dst, tvb(0, 2))
    t:add(f.src, tvb(2, 2))
    t:add(f.type, tvb(4, 1))
    local ft = t:add(f.flags, tvb(5, 1))
    ft:add(f.flag_resync, tvb(5, 1))
    ft:add(f.flag_last, tvb(5, 1))
    ft:add(f.flag_void, tvb(5, 1))
    t:add_le(f.len, tvb(6, 2))
    t:add_le(f.seq, tvb(8, 4))
    t:add_le(f.ack, tvb(12, 4))
    local ot = t:add_le(f.op, tvb(16, 4))
    ot:add_le(f.op_slot, tvb(16, 4))
    ot:add_le(f.op_gen, tvb(16, 4))
    t:add_le(f.pid, tvb(20, 2))
    t:add_le(f.reason, tvb(22, 2))
    t:add_le(f.buf, tvb(24, 4))
    t:add_le(f.key, tvb(28, 4))
    t:add_le(f.token, tvb(32, 4))
    t:add_le(f.off, tvb(36, 8))
    -- word 11: one word, two meanings by type
    if ty == 1 or ty == 2 then
        t:add_le(f.xlen, tvb(44, 4))
    elseif ty == 5 or ty == 3 then
        t:add_le(f.status, tvb(44, 4))
    end
    local rest = tvb:len() - HDR
    if plen > 0 and rest >= plen then
        t:add(f.payload, tvb(HDR, plen))
    end
    if rest >= plen + 4 then
        t:add_le(f.fcs, tvb(HDR + plen, 4))
    end
    local name = types[ty] or ("type " .. ty)
    local info = string.format("%s %d -> %d seq=%d ack=%d", name, tvb(2, 2):uint(), tvb(0, 2):uint(),
                         tvb(8, 4):le_uint(), tvb(12, 4):le_uint())
    if ty == 5 then
        local r = tvb(22, 2):le_uint()
        info = info .. " " .. (reasons[r] or ("reason " .. r))
    end
    if plen > 0 then
        info = info .. string.format(" len=%d", plen)
    end
    pinfo.cols.info = info
    return tvb:len()
end

DissectorTable.get("wtap_encap"):add(wtap.USER0, ncp)
