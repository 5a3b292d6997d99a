#!/usr/bin/env python3
"""nicsim --pcap, decoded by tshark with tools/wireshark/ncp.lua, against what the run reported.

  check_pcap.py NICSIM LUA OUTDIR

Runs a short RDMA-write stream (3 ops of 8 KiB = 2 segments each, node 0 -> node 1; the first
misses in node 1's VMH cache, so NACKs and resends appear) with --pcap and --json, then checks:
  - the file: pcap, nanosecond magic 0xa1b23c4d, link type USER0 (147), one record per frame the
    switch took in (report: switch.frames), timestamps nondecreasing and within the simulated time
  - the dissector's fields: frames per source node = that node's MAC tx_ok; WRITE frames = node 0's
    tx_packets (first sends + retransmits); NACK frames = node 1's NACKs = node 0's nacks_received;
    the distinct WRITE sequence numbers are 6 consecutive ones, 3 of them LAST, whose xlen (word 11:
    the segment's offset in its op) is 4096 and the others' 0; the last ACK acknowledges all 6;
    every frame from a node carries one token (offset 32)
Exit 77 (ctest: skipped) only when tshark is not installed (scripts/setup installs it).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys


def records(path):
    raw = open(path, "rb").read()
    pos, k = 24, 0
    while pos + 16 <= len(raw):
        pos += 16 + struct.unpack("<I", raw[pos + 8:pos + 12])[0]
        k += 1
    return k if pos == len(raw) else -1


def nicrun_mode(nicrun, image, out):
    """nicrun --pcap: one record per frame the senders sent (its link accounting line); a path
    that cannot be created fails before the run with exit 3."""
    pcap = os.path.join(out, "pcap_nicrun.pcap")
    p = subprocess.run([nicrun, "--nodes", "2", "--frames", "20", "--check-link", "--quiet", "--pcap", pcap, image],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    print(p.stdout)
    m = re.search(r"nicrun: link: (\d+) frames sent", p.stdout)
    k = records(pcap)
    ok = p.returncode == 0 and m and int(m.group(1)) == k and k >= 20
    print("records %d, frames sent %s: %s" % (k, m.group(1) if m else "?", "ok" if ok else "FAILED"))
    q = subprocess.run([nicrun, "--nodes", "2", "--pcap", "/nonexistent-dir/x.pcap", image], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=60)
    ok2 = q.returncode == 3 and "--pcap /nonexistent-dir/x.pcap" in q.stdout and "cycles simulated" not in q.stdout
    print("bad --pcap path: exit %d: %s" % (q.returncode, "ok" if ok2 else "FAILED"))
    return 0 if ok and ok2 else 1


def main():
    if sys.argv[1] == "--nicrun":
        return nicrun_mode(*sys.argv[2:5])
    nicsim, lua, out = sys.argv[1:4]
    q = subprocess.run([nicsim, "--workload", "stream", "--nodes", "2", "--iters", "1", "--quiet", "--pcap",
                        "/nonexistent-dir/x.pcap"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if q.returncode != 3:
        print("FAILED: nicsim --pcap with a bad path: exit %d, expected 3 (set-up error)" % q.returncode)
        return 1
    if not shutil.which("tshark"):
        print("SKIP: tshark is not installed (scripts/setup installs it): the capture is not decoded")
        return 77
    pcap = os.path.join(out, "pcap_stream.pcap")
    js = os.path.join(out, "pcap_stream.json")
    iters, size = 3, 8192
    segs = iters * size // 4096
    subprocess.run([nicsim, "--workload", "stream", "--nodes", "2", "--iters", str(iters), "--size", str(size),
                    "--quiet", "--pcap", pcap, "--json", js], check=True, timeout=120)
    d = json.load(open(js))
    n = d["nodes"]
    bad = []

    def check(ok, what):
        print(("ok: " if ok else "FAILED: ") + what)
        if not ok:
            bad.append(what)

    raw = open(pcap, "rb").read()
    magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", raw[:24])
    check(magic == 0xA1B23C4D and (vmaj, vmin) == (2, 4), "pcap header: ns magic 0x%08x v%d.%d" % (magic, vmaj, vmin))
    check(link == 147, "link type %d == 147 (USER0)" % link)
    pos, recs, ts = 24, 0, []
    while pos < len(raw):
        sec, nsec, incl, orig = struct.unpack("<IIII", raw[pos:pos + 16])
        if incl != orig or nsec >= 10**9:
            check(False, "record %d well formed" % recs)
        ts.append(sec * 10**9 + nsec)
        pos += 16 + incl
        recs += 1
    check(pos == len(raw), "records end at the end of the file")
    check(recs == d["switch"]["frames"], "records %d == switch frames %d" % (recs, d["switch"]["frames"]))
    check(ts == sorted(ts), "timestamps nondecreasing")
    sim_ns = d["sim"]["cycles"] * 10**9 // d["sim"]["clock_hz"]
    check(ts and 0 < ts[0] and ts[-1] <= sim_ns, "timestamps in simulated ns: %d..%d <= %d" % (ts[0], ts[-1], sim_ns))

    fields = ["nicncp.src", "nicncp.dst", "nicncp.type", "nicncp.seq", "nicncp.ack", "nicncp.flags.last",
              "nicncp.xlen", "nicncp.reason", "nicncp.token", "nicncp.len"]
    cmd = ["tshark", "-X", "lua_script:" + lua, "-r", pcap, "-T", "fields", "-E", "separator=,"]
    for f in fields:
        cmd += ["-e", f]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    check(p.returncode == 0, "tshark ran (%s)" % p.stderr.strip()[-200:])
    rows = []
    for line in p.stdout.splitlines():
        v = line.split(",")
        rows.append(dict(zip([f.rsplit(".", 1)[1] for f in fields], v)))
    check(len(rows) == recs, "tshark decoded %d frames == %d records" % (len(rows), recs))
    for i in (0, 1):
        k = sum(1 for r in rows if r["src"] == str(i))
        check(k == n[i]["mac"]["tx_ok"], "frames from node %d: %d == its MAC tx_ok %d" % (i, k, n[i]["mac"]["tx_ok"]))
        toks = {r["token"] for r in rows if r["src"] == str(i)}
        check(len(toks) == 1 and "" not in toks, "node %d's frames carry one token %s" % (i, toks))
    writes = [r for r in rows if r["type"] == "1"]
    check(all(r["src"] == "0" and r["dst"] == "1" and r["len"] == "4096" for r in writes),
          "every WRITE is 0 -> 1 with 4096 bytes")
    check(len(writes) == n[0]["transport"]["tx_packets"],
          "WRITE frames %d == node 0 tx_packets %d" % (len(writes), n[0]["transport"]["tx_packets"]))
    nacks = [r for r in rows if r["type"] == "5"]
    check(len(nacks) == n[0]["transport"]["nacks_received"] and len(nacks) > 0,
          "NACK frames %d == node 0 nacks_received %d (> 0)" % (len(nacks), n[0]["transport"]["nacks_received"]))
    seqs = sorted({int(r["seq"]) for r in writes})
    check(len(seqs) == segs and seqs == list(range(seqs[0], seqs[0] + segs)),
          "%d distinct consecutive WRITE sequence numbers: %s" % (segs, seqs))
    firsts = [int(r["seq"]) for r in writes[:2]]
    check(firsts == seqs[:2], "the first WRITEs carry the first sequence numbers %s" % firsts)
    last = sorted({int(r["seq"]) for r in writes if r["last"] in ("1", "True")})
    check(last == seqs[1::2], "LAST on every second segment: %s" % last)
    check(all(r["xlen"] == ("4096" if int(r["seq"]) in last else "0") for r in writes),
          "WRITE xlen (word 11) = segment offset in its op")
    acks = [int(r["ack"]) for r in rows if r["src"] == "1"]
    check(acks and acks[-1] == seqs[0] + segs, "node 1's last ack %s == %d" % (acks[-1:], seqs[0] + segs))
    if bad:
        print("check_pcap: %d checks failed" % len(bad))
        return 1
    print("check_pcap: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
