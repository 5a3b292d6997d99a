#!/usr/bin/env python3
"""nicsim.fw_profile: scripts/fw-profile on a short window of a stream. Checks what the tool claims, not
a speed: both nodes report packets (> 0, the same count), busy cycles and instructions per packet are
positive, CPI >= 1 (one instruction per cycle at most), and the rows (--top large) account for every
busy cycle of the window (shares sum to 100 % within the rounding of the rows, per-packet cycles to
busy per packet; the cycles asleep in wfi, the gaps before wfi lines, are in no row).
Then --workload incast (3 nodes): the receiver's line, its packets and ACK frames counted, its window cut to its RX_TAIL
stores, every cycle attributed."""
import re
import subprocess
import sys

script = sys.argv[1]
out = subprocess.run([script, "--from", "400000", "--to", "600000", "--iters", "60", "--top", "100000"],
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(out.stdout)
if out.returncode != 0:
    sys.exit("fw-profile failed: %d" % out.returncode)
head = re.compile(r"^node (\d) \((\w[\w ]*)\): (\d+) packets in cycles \[(\d+), (\d+)\): busy ([\d.]+) cycles/packet "
                  r"\((\d+) asleep in wfi\), ([\d.]+) instructions/packet, CPI ([\d.]+)$")
row = re.compile(r"^\s+([\d.]+)\s+([\d.]+)%\s+([\d.]+)\s+\S")
nodes, cur = {}, None
for ln in out.stdout.splitlines():
    m = head.match(ln)
    if m:
        cur = int(m.group(1))
        nodes[cur] = dict(role=m.group(2), packets=int(m.group(3)), c0=int(m.group(4)), c1=int(m.group(5)),
                          busy=float(m.group(6)), asleep=int(m.group(7)), ins=float(m.group(8)), cpi=float(m.group(9)),
                          rows=[])
        continue
    m = row.match(ln)
    if m and cur is not None:
        nodes[cur]["rows"].append((float(m.group(1)), float(m.group(2))))
ok = True


def check(cond, what):
    global ok
    print(("ok    " if cond else "FAIL  ") + what)
    ok = ok and cond


check(sorted(nodes) == [0, 1], "both nodes reported")
for n, d in sorted(nodes.items()):
    check(d["role"] == ("sender" if n == 0 else "receiver"), "node %d's role %s" % (n, d["role"]))
    check(d["packets"] > 0, "node %d: packets %d > 0" % (n, d["packets"]))
    check(d["busy"] > 0 and d["ins"] > 0 and d["cpi"] >= 1.0, "node %d: busy, instructions, CPI plausible" % n)
    share = sum(s for _, s in d["rows"])
    check(abs(share - 100.0) <= 0.05 * len(d["rows"]) + 0.05, "node %d: rows' shares sum to %.2f %% (%d rows, each rounded to 0.1)" % (n, share, len(d["rows"])))
    per = sum(c for c, _ in d["rows"])
    want = (d["c1"] - d["c0"]) / d["packets"]
    check(abs(per - d["busy"]) <= 0.01 * d["busy"] + 0.1 * len(d["rows"]),
          "node %d: rows' cycles/packet %.1f = busy %.1f" % (n, per, d["busy"]))
    check(abs(d["busy"] - (want - d["asleep"] / d["packets"])) < 0.2, "node %d: busy = window - asleep" % n)
check(nodes.get(0, {}).get("packets") == nodes.get(1, {}).get("packets"), "one packet count for both")

# --workload incast: only the receiver (node 0), its packets the frames taken from its RX ring
out = subprocess.run([script, "--workload", "incast", "--nodes", "3", "--iters", "8", "--from", "300000", "--to",
                      "450000", "--top", "100000"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(out.stdout)
check(out.returncode == 0, "incast: fw-profile exit %d" % out.returncode)
ihead = re.compile(r"^node 0 \(incast receiver, 2 senders\): (\d+) packets in cycles \[(\d+), (\d+)\): busy ([\d.]+) "
                   r"cycles/packet \((\d+) asleep in wfi\), ([\d.]+) instructions/packet, CPI ([\d.]+), (\d+) ACK/NACK "
                   r"frames sent \(([\d.]+) per packet\)$")
lines = out.stdout.splitlines()
m = ihead.match(lines[0]) if lines else None
check(m is not None, "incast: the receiver's line")
if m:
    pk, c0, c1, busy, asleep = int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4)), int(m.group(5))
    check(pk > 0 and busy > 0 and float(m.group(7)) >= 1.0, "incast: packets %d, busy %.1f, CPI plausible" % (pk, busy))
    check(300000 <= c0 < c1 <= 450000, "incast: the window cut to its RX_TAIL stores [%d, %d)" % (c0, c1))
    check(int(m.group(8)) > 0 and abs(int(m.group(8)) / pk - float(m.group(9))) < 0.01, "incast: ACK frames counted")
    rows = [row.match(ln) for ln in lines[2:]]
    per = sum(float(r.group(1)) for r in rows if r)
    check(abs(per - busy) <= 0.01 * busy + 0.1 * len([r for r in rows if r]),
          "incast: rows' cycles/packet %.1f = busy %.1f" % (per, busy))
    check(abs(busy - ((c1 - c0) - asleep) / pk) < 0.2, "incast: busy = window - asleep")
sys.exit(0 if ok else 1)
