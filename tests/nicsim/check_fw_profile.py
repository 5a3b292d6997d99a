#!/usr/bin/env python3
"""nicsim.fw_profile: scripts/fw-profile on a short window of a stream. Checks what the tool claims, not
a speed: both nodes report packets (> 0, the same count), busy cycles and instructions per packet are
positive, CPI >= 1 (one instruction per cycle at most), and the rows (--top large) account for every
cycle of the window (shares sum to 100 % within the rounding of the rows, per-packet cycles to busy + asleep per packet)."""
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
    check(abs(per - want) <= 0.01 * want, "node %d: rows' cycles/packet %.1f = window/packets %.1f" % (n, per, want))
    check(abs(d["busy"] - (want - d["asleep"] / d["packets"])) < 0.2, "node %d: busy = window - asleep" % n)
check(nodes.get(0, {}).get("packets") == nodes.get(1, {}).get("packets"), "one packet count for both")
sys.exit(0 if ok else 1)
