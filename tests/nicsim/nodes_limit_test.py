#!/usr/bin/env python3
"""The simulator and switch take up to 256 nodes; the firmware keeps per-peer state for fewer
(its max_peers, NCP_MAX_PEERS). A cluster larger than the firmware's limit must stop with an error
that names the limit, not run wrong or hang; --nodes above 256 is refused as a bad option.

  nodes_limit_test.py NICSIM PEERS      the firmware's limit (its NCP_MAX_PEERS = PEERS) named by a
                                        run on PEERS + 1 nodes, 257 refused
  nodes_limit_test.py --256 NICRUN IMG  256 nodes on the switch: fw_nic_link (raw frames to the next
                                        node, no NCP peer state) passes on every node, and every
                                        frame is accounted for (nicrun --check-link)
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def nodes_256(nicrun, img):
    p = subprocess.run([nicrun, "--nodes", "256", "--frames", "4", "--check-link", "--quiet", img],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280)
    passed = sum("PASS at cycle" in l for l in p.stdout.splitlines())
    link = [l for l in p.stdout.splitlines() if "nicrun: link:" in l]
    if p.returncode != 0 or passed != 256 or not link:
        fail("256 nodes: exit %d, %d nodes passed\n%s%s" % (p.returncode, passed, p.stdout[-2000:], p.stderr[-2000:]))
    if "1024 frames sent, 1024 handed to NICs" not in link[0] or "1024 in, 1024 out" not in link[0]:
        fail("256 nodes: the link accounting is not 4 frames per node: " + link[0])
    print("256 nodes: %d passed; %s" % (passed, link[0]))
    print("PASS")


def main():
    if sys.argv[1] == "--256":
        return nodes_256(sys.argv[2], sys.argv[3])
    nicsim, peers = sys.argv[1], int(sys.argv[2])
    nodes = peers + 1
    if nodes > 256:  # the default firmware since issue 13: the simulator's 257 is the limit to refuse
        p = subprocess.run([nicsim, "--nodes", "257"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 3 or "1..256" not in p.stderr:
            fail("--nodes 257: exit %d, %r" % (p.returncode, p.stderr))
        print("the firmware takes 256 nodes; 257 refused: " + p.stderr.strip())
        print("PASS")
        return
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "n.json")
        p = subprocess.run([nicsim, "--workload", "pingpong", "--nodes", str(nodes), "--iters", "1", "--size-max", "64",
                            "--quiet", "--json", rep], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=240)
        if p.returncode != 3:
            fail("--nodes %d: exit %d (expected 3, a setup error)\n%s" % (nodes, p.returncode, p.stderr))
        with open(rep) as f:
            d = json.load(f)
        if d["result"] != "SETUP" or ("at most %d nodes" % peers) not in d["error"] or "NCP_MAX_PEERS" not in d["error"]:
            fail("--nodes %d: the report's error does not name the firmware limit: %r" % (nodes, d["error"]))
        if d["config"]["nodes"] != nodes or len(d["nodes"]) != nodes:
            fail("--nodes %d: the report does not cover %d nodes" % (nodes, nodes))
        print("%d nodes: %s" % (nodes, d["error"]))
        p = subprocess.run([nicsim, "--nodes", "257"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 3 or "1..256" not in p.stderr:
            fail("--nodes 257: exit %d, %r" % (p.returncode, p.stderr))
        print("257 nodes: " + p.stderr.strip())
    print("PASS")


if __name__ == "__main__":
    main()
