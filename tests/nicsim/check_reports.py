#!/usr/bin/env python3
"""check_reports: the reports of nicsim and nicrun (issue 17, items 6, 7, 8 and 11).

  check_reports.py CASE --nicsim NICSIM --nicrun NICRUN --fwimage FWIMAGE --build BUILD --out DIR
                   --version PROJECT_VERSION

CASE is one of the functions named case_* below (the ctest name says which). Each runs the tools,
parses their reports with the json and csv modules and asserts on exit statuses, fields and
messages. Exit 0 when every check holds, 1 with the failures listed.
"""
import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

A = None
FAILS = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)
    return cond


def run(argv, timeout=300):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def odd_dir(name):
    """A directory whose name has a quote, a backslash, a comma and a space in it."""
    d = os.path.join(A.out, name, 'we"ird\\ dir,x')
    shutil.rmtree(os.path.join(A.out, name), ignore_errors=True)
    os.makedirs(d)
    return d


def fw_crc(img):
    rc, out, err = run([A.fwimage, "verify", img])
    m = re.search(r"firmware (\d+\.\d+), .* crc (0x[0-9a-f]+)", out + err)
    return m.groups() if m else (None, None)


def common(d, tool, img):
    check(d.get("schema_version") == 2, "%s: schema_version 2" % tool)
    check(d.get("tool") == tool, "%s: tool" % tool)
    check(d.get("tool_version") == A.version, "%s: tool_version %s" % (tool, A.version))
    gd = d.get("git_describe", "")
    check(isinstance(gd, str) and gd != "" and gd != "unknown", "%s: git_describe '%s'" % (tool, gd))
    ver, crc = fw_crc(img)
    fw = d.get("firmware", {})
    check(ver is not None and fw.get("version") == ver, "%s: firmware.version %s = fwimage's %s" % (tool, fw.get("version"), ver))
    check(crc is not None and fw.get("payload_crc32") == crc,
          "%s: firmware.payload_crc32 %s = fwimage's %s" % (tool, fw.get("payload_crc32"), crc))
    check(fw.get("image") == img, "%s: firmware.image is the path given" % tool)
    check(d.get("partial") is False, "%s: not partial" % tool)


# ---- item 6: valid for any input; identity; CSV with every option --------------------------
def case_json_any_path():
    d = odd_dir("anypath")
    js, cs = os.path.join(d, 'r"e\\p.json'), os.path.join(d, 'r"e\\p.csv')
    img = os.path.join(d, 'fw "q" \\b.img')
    shutil.copy(os.path.join(A.build, "fw", "ncp.img"), img)
    rc, out, err = run([A.nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "64",
                        "--iters", "4", "--quiet", "--fw", img, "--host-cost", "irq_ns=1000", "--json", js, "--csv", cs])
    check(rc == 0, "nicsim with quotes and backslashes in --fw, --json, --csv: exit %d %s" % (rc, err[-300:]))
    with open(js) as f:
        r = json.load(f)
    common(r, "nicsim", img)
    check(r["config"]["image"] == img, "config.image round-trips the odd path")
    check(r["result"] == "PASS" and r["exit_status"] == 0, "result PASS, exit_status 0")
    with open(cs, newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 4, "CSV: one row per size (%d)" % len(rows))
    check(all(x["image"] == img for x in rows), "CSV: the image column round-trips the odd path")
    check(all(x["host_cost"] == "irq_ns=1000" for x in rows), "CSV: host_cost column")
    want = ["op", "bidir", "window", "iters", "warmup", "size_min", "size_max", "link_gbps", "link_latency_cycles",
            "drop", "duplicate", "corrupt", "delay", "seed", "miss_ratio", "ws_pages", "phases", "compute_ns",
            "pin_hwm", "miss_threads", "prefill", "max_cycles", "no_skip", "partial"]
    check(all(k in rows[0] for k in want), "CSV: every option that shapes a run has a column")
    check([int(x["size"]) for x in rows] == [8, 16, 32, 64], "CSV: sizes")
    check(rows[0]["lookup"] == "dynamic" and rows[0]["C"] == "16384" and r["config"]["nack"] is True,
          "the firmware's configuration from its handshake")
    # an NCP that crashes before its handshake: the report does not invent a configuration
    js2, cs2 = os.path.join(d, "trap.json"), os.path.join(d, "trap.csv")
    rc, out, err = run([A.nicsim, "--workload", "pingpong", "--nodes", "2", "--size", "64", "--iters", "2", "--quiet",
                        "--fw", os.path.join(A.build, "fw", "fw_trap_demo.img"), "--json", js2, "--csv", cs2])
    t = json.load(open(js2))
    row = list(csv.DictReader(open(cs2, newline="")))[0]
    check(rc == 1 and t["result"] == "FAIL" and t["config"]["lookup"] is None and t["config"]["cache"] is None
          and row["lookup"] == "" and row["C"] == "", "no handshake: lookup and cache null in the JSON, empty in the CSV")


def case_csv_stream_rw():
    d = odd_dir("rw")
    rows = {}
    for op in ("write", "read"):
        cs = os.path.join(d, op + ".csv")
        rc, out, err = run([A.nicsim, "--workload", "stream", "--nodes", "2", "--iters", "24", "--size", "8192",
                            "--window", "4", "--op", op, "--quiet", "--csv", cs])
        check(rc == 0, "stream --op %s: exit %d" % (op, rc))
        with open(cs, newline="") as f:
            rows[op] = list(csv.DictReader(f))[0]
    check(rows["write"]["op"] == "write" and rows["read"]["op"] == "read", "CSV: stream read and write rows differ in op")
    same = [k for k in rows["write"] if k not in ("op",) and rows["write"][k] != rows["read"][k]]
    check(rows["write"]["window"] == "4" and rows["write"]["bidir"] == "0", "CSV: window and bidir columns")
    check(len(same) > 0, "CSV: the figures differ too")


def case_open_before_run():
    for opt in ("--json", "--csv"):
        rc, out, err = run([A.nicsim, "--workload", "stream", "--nodes", "2", "--iters", "100000", opt,
                            "/nonexistent-dir/x.out"])
        check(rc == 3, "nicsim %s into a missing directory: exit %d (want 3)" % (opt, rc))
        check(opt in err and "No such file" in err, "nicsim %s: the message names the option and why: %s" % (opt, err.strip()))
        check(not out.strip(), "nicsim %s: fails before the run (nothing simulated, no banner or summary): %r" % (opt, out[:200]))
    rc, out, err = run([A.nicrun, "--json", "/nonexistent-dir/x.json", os.path.join(A.build, "fw", "fw_nic_link.img")])
    check(rc == 3 and "--json" in err, "nicrun --json into a missing directory: exit %d: %s" % (rc, err.strip()))


def interrupt(argv, sig, pattern):
    """Start argv, wait until its progress output on stderr matches `pattern` (the run is under
    way: nothing depends on the machine's speed), send sig, collect the output."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err, t0 = b"", time.time()
    while time.time() - t0 < 240:
        chunk = os.read(p.stderr.fileno(), 4096)
        if not chunk:
            break
        err += chunk
        if re.search(pattern, err.decode(errors="replace")):
            p.send_signal(sig)
            break
    try:
        out, rest = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, rest = p.communicate()
    return p.returncode, "", (err + rest).decode(errors="replace")


def case_partial():
    d = odd_dir("partial")
    for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        js, cs = os.path.join(d, name + ".json"), os.path.join(d, name + ".csv")
        rc, out, err = interrupt([A.nicsim, "--workload", "stream", "--nodes", "2", "--iters", "10000000",
                                  "--size", "4096", "--quiet", "--progress", "--json", js, "--csv", cs], sig,
                                 r"[1-9]\d*/10000000 ops")
        check(rc == 128 + sig, "nicsim stopped by %s: exit %d (want %d)" % (name, rc, 128 + sig))
        try:
            with open(js) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            check(False, "nicsim %s: the report parses (%s)" % (name, e))
            continue
        check(r["partial"] is True and r["signal"] == name, "nicsim %s: report marked partial, signal %s" % (name, r.get("signal")))
        check(r["result"] == "INTERRUPTED" and name in r["error"], "nicsim %s: result INTERRUPTED: %s" % (name, r["error"]))
        check(0 < r["workload"]["ops"] < 10000000, "nicsim %s: the operations done so far (%d)" % (name, r["workload"]["ops"]))
        check(r["verify"]["bytes_checked"] > 0 and r["verify"]["mismatches"] == 0, "nicsim %s: bytes verified so far" % name)
        with open(cs, newline="") as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == 1 and rows[0]["partial"] == "1" and rows[0]["result"] == "INTERRUPTED",
              "nicsim %s: CSV row marked partial" % name)
    js = os.path.join(d, "nicrun.json")
    rc, out, err = interrupt([A.nicrun, "--nodes", "4", "--no-skip", "--frames", "1000", "--json", js,
                              os.path.join(A.build, "fw", "fw_nic_link.img")], signal.SIGTERM, r"\[sim\] [0-9.]+ ms")
    check(rc == 128 + signal.SIGTERM, "nicrun stopped by SIGTERM: exit %d" % rc)
    try:
        with open(js) as f:
            r = json.load(f)
        check(r["partial"] is True and r["signal"] == "SIGTERM" and r["result"] == "INTERRUPTED",
              "nicrun SIGTERM: report marked partial")
    except (OSError, ValueError) as e:
        check(False, "nicrun SIGTERM: the report parses (%s)" % e)


# ---- setup errors exit 3 before any cluster -------------------------------------------------
def case_corrupt_fw():
    d = odd_dir("corrupt")
    src = os.path.join(A.build, "fw", "ncp.img")
    data = bytearray(open(src, "rb").read())
    cases = {"payload": (bytes(data[:100]) + bytes([data[100] ^ 0x01]) + bytes(data[101:]), "payload CRC"),
             "header": (bytes([data[0] ^ 0xFF]) + bytes(data[1:]), "not an NCP firmware image"),
             "truncated": (bytes(data[:len(data) // 2]), "truncated")}
    for name, (blob, why) in cases.items():
        img = os.path.join(d, name + ".img")
        open(img, "wb").write(blob)
        rc, out, err = run([A.nicsim, "--workload", "pingpong", "--nodes", "2", "--iters", "2", "--fw", img,
                            "--json", os.path.join(d, name + ".json")])
        check(rc == 3, "nicsim --fw with a %s corruption: exit %d (want 3)" % (name, rc))
        check("not a valid firmware image" in err and why in err, "nicsim %s: says why: %s" % (name, err.strip()))
        check("probe" not in err and "result" not in out, "nicsim %s: refused before the cluster runs" % name)
        rc, out, err = run([A.nicrun, img])
        check(rc == 3 and why in err, "nicrun with a %s corruption: exit %d: %s" % (name, rc, err.strip()))


# ---- item 8: the firmware's handshake against the options -----------------------------------
def case_handshake():
    b = A.build
    pp = ["--workload", "pingpong", "--nodes", "2", "--size-min", "64", "--size-max", "64", "--iters", "2", "--quiet"]
    cases = [
        ([" --fw", os.path.join(b, "fw-static", "ncp.img"), "--lookup", "dynamic"], "lookup", "static lookup"),
        ([" --fw", os.path.join(b, "fw", "ncp.img"), "--lookup", "static"], "lookup", "dynamic lookup"),
        ([" --fw", os.path.join(b, "fw-nonack", "ncp.img"), "--nack", "on"], "NACK", "does not send receive-miss NACKs"),
        ([" --fw", os.path.join(b, "fw", "ncp.img"), "--nack", "off"], "NACK", "sends receive-miss NACKs"),
        ([" --fw", os.path.join(b, "fw", "ncp.img"), "--cache", "1024,8,2"], "geometry", "C1024 L8 A2"),
        ([" --fw", os.path.join(b, "fwvar", "c1024-l8-a2", "ncp.img"), "--cache", "16384,64,4"], "geometry",
         "its VMH cache is C1024 L8 A2"),
    ]
    for args, what, text in cases:
        args = [a.strip() for a in args]
        js = os.path.join(A.out, "handshake.json")
        rc, out, err = run([A.nicsim] + pp + args + ["--json", js])
        check(rc == 3, "nicsim %s: a %s mismatch exits %d (want 3)" % (" ".join(args), what, rc))
        check("does not match the options" in err and text in err, "nicsim %s: message: %s" % (" ".join(args), err.strip()[-400:]))
        if os.path.exists(js) and os.path.getsize(js):
            r = json.load(open(js))
            check(r["result"] == "SETUP" and "does not match" in r["error"], "the report says SETUP and why")
    # matching images run
    for args in (["--fw", os.path.join(b, "fw-nonack", "ncp.img"), "--nack", "off"],
                 ["--nack", "off"], ["--lookup", "static"],
                 ["--fw", os.path.join(b, "fwvar", "c1024-l8-a2", "ncp.img"), "--cache", "1024,8,2"]):
        rc, out, err = run([A.nicsim] + pp + args)
        check(rc == 0, "nicsim %s: the firmware matches, the run passes (exit %d) %s" % (" ".join(args), rc, err[-300:]))


# ---- item 11: options checked up front ------------------------------------------------------
def case_option_limits():
    cases = [
        (["--workload", "ocean", "--nodes", "2", "--ws-pages", "40000"], "--ws-pages 40000 does not fit"),
        (["--workload", "fft", "--nodes", "4", "--ws-pages", "65536"], "use 16..32640"),
        (["--workload", "stream", "--nodes", "2", "--window", "64", "--size", "16777216"], "more than a node's host has"),
        (["--workload", "reglimit", "--nodes", "2", "--size", "1048576", "--ws-pages", "100"],
         "is less than one buffer"),
    ]
    for args, text in cases:
        # up front: refused before any node is built or cycle simulated, so nothing on stdout (a run
        # prints its banner and summary there); not a wall-clock bound, which a loaded machine breaks
        rc, out, err = run([A.nicsim] + args)
        check(rc == 3 and text in err and not out.strip(),
              "nicsim %s: exit %d up front (stdout %r): %s" % (" ".join(args), rc, out[:200], err.strip()))
    # the largest working set that fits still runs (one phase)
    rc, out, err = run([A.nicsim, "--workload", "ocean", "--nodes", "2", "--ws-pages", "32640", "--phases", "1",
                        "--quiet"], timeout=600)
    check(rc == 0, "nicsim ocean --ws-pages 32640 (the largest accepted) runs: exit %d %s" % (rc, err[-300:]))
    lr = os.path.join(A.build, "fw", "fw_nic_link.img")
    for args, text in ((["--nodes", "x"], "bad value 'x' for --nodes"), (["--drop", "2"], "bad value '2' for --drop"),
                       (["--link-gbps", "0"], "bad value '0' for --link-gbps"),
                       (["--max-cycles=zz"], "bad value 'zz' for --max-cycles"),
                       (["--frobnicate"], "unknown option or missing value: --frobnicate")):
        rc, out, err = run([A.nicrun] + args + [lr])
        check(rc == 3 and text in err and "--?" not in err, "nicrun %s: exit %d: %s" % (" ".join(args), rc, err.strip()))


def case_fwimage_version():
    d = odd_dir("fwimage")
    b = os.path.join(d, "p.bin")
    open(b, "wb").write(b"\x13\x00\x00\x00" * 4)
    for v, want in (("0.1", "0.1"), ("2.12", "2.12"), ("0x00030004", "3.4"), ("65535.65535", "65535.65535")):
        img = os.path.join(d, "p.img")
        rc, out, err = run([A.fwimage, "pack", "--bin", b, "--version", v, "-o", img])
        check(rc == 0, "fwimage pack --version %s: exit %d %s" % (v, rc, err.strip()))
        rc, out, err = run([A.fwimage, "verify", img])
        check(rc == 0 and ("firmware %s," % want) in out, "fwimage verify: firmware %s (%s)" % (want, out.strip()))
    for v in ("0.x", "1.65536", "-1.2", "1.", ".1"):
        rc, out, err = run([A.fwimage, "pack", "--bin", b, "--version", v, "-o", os.path.join(d, "q.img")])
        check(rc == 2 and ("bad value '%s' for --version" % v) in err, "fwimage pack --version %s: exit %d: %s" % (v, rc, err.strip()[:120]))
    rc, out, err = run([A.fwimage, "pack", "--bin", b, "-o", os.path.join(d, "q.img")])
    check(rc == 2 and "--version V missing" in err, "fwimage pack without --version says so")


# ---- item 7: perftest's figures -------------------------------------------------------------
def case_perftest():
    d = odd_dir("perftest")
    js, cs = os.path.join(d, "pp.json"), os.path.join(d, "pp.csv")
    rc, out, err = run([A.nicsim, "--workload", "pingpong", "--nodes", "2", "--size-min", "8", "--size-max", "8192",
                        "--iters", "30", "--json", js, "--csv", cs])
    check(rc == 0, "pingpong: exit %d" % rc)
    r = json.load(open(js))
    pts = r["workload"]["points"]
    check(len(pts) == 11, "pingpong: 11 sizes")
    for p in pts:
        u = p["latency_us"]
        ok = (u["t_min"] <= u["typical"] <= u["t_max"] and u["t_min"] <= u["average"] <= u["t_max"]
              and u["typical"] <= u["p99"] <= u["p99_9"] <= u["t_max"] and u["stdev"] >= 0
              and abs(u["typical"] * 1000 - p["latency_ns"]["p50"]) <= 1
              and abs(u["average"] * 1000 - p["latency_ns"]["mean"]) <= 1
              and (u["stdev"] > 0) == (u["t_max"] > u["t_min"]))
        check(ok, "pingpong size %d: t_min <= typical, average <= t_max; p99 <= p99.9 <= t_max; us = ns/1000: %s" % (p["size"], u))
    check(pts[-1]["latency_us"]["t_min"] > pts[0]["latency_us"]["t_max"], "pingpong: 8 KiB slower than 8 B")
    rows = list(csv.DictReader(open(cs, newline="")))
    check(all(abs(float(x["lat_typical_us"]) - p["latency_us"]["typical"]) < 0.001 and
              abs(float(x["lat_p99_9_us"]) - p["latency_us"]["p99_9"]) < 0.001 for x, p in zip(rows, pts)),
          "CSV: the same figures per size, in us")
    head = out[out.find("size[B]"):].splitlines()[0] if "size[B]" in out else ""
    check(all(k in head for k in ("t_min[us]", "t_max[us]", "typical[us]", "average[us]", "stdev[us]", "99%[us]",
                                   "99.9%[us]", "BW[MB/s]")), "text: one unit per column: %s" % head.strip())
    # streams: peak and average bandwidth and message rate
    js = os.path.join(d, "st.json")
    rc, out, err = run([A.nicsim, "--workload", "stream", "--nodes", "2", "--iters", "64", "--size", "16384",
                        "--window", "4", "--json", js, "--csv", cs])
    check(rc == 0, "stream: exit %d" % rc)
    r = json.load(open(js))
    s, w = r["workload"]["stream"], r["workload"]
    check(abs(s["bw_avg_MBps"] - w["bandwidth_MBps"]) < 0.01, "stream: average bandwidth = bytes / time")
    check(abs(s["msg_rate_avg_Mps"] * 16384 - s["bw_avg_MBps"]) < 0.05, "stream: message rate x size = bandwidth")
    check(s["bw_peak_MBps"] >= s["bw_avg_MBps"] and s["msg_rate_peak_Mps"] >= s["msg_rate_avg_Mps"],
          "stream: peak >= average (%s)" % s)
    check(s["bw_peak_MBps"] <= w["limit_MBps"] * 1.02, "stream: peak within the link's limit (%.1f <= %.1f)"
          % (s["bw_peak_MBps"], w["limit_MBps"]))
    row = list(csv.DictReader(open(cs, newline="")))[0]
    check(abs(float(row["bw_peak_MBps"]) - s["bw_peak_MBps"]) < 0.01 and
          abs(float(row["msg_rate_avg_Mps"]) - s["msg_rate_avg_Mps"]) < 1e-5, "CSV: the stream figures")
    check("bandwidth peak" in out and "message rate peak" in out, "text: the stream line")
    # both directions, reads completing out of order: the peak still within the (doubled) limit
    rc, out, err = run([A.nicsim, "--workload", "stream", "--nodes", "2", "--iters", "48", "--size", "16384",
                        "--window", "12", "--op", "read", "--bidir", "--quiet", "--json", js])
    r = json.load(open(js))
    s, w = r["workload"]["stream"], r["workload"]
    check(rc == 0 and s["bw_avg_MBps"] <= s["bw_peak_MBps"] <= w["limit_MBps"],
          "stream --bidir --op read: average <= peak <= limit (%s, limit %.1f)" % (s, w["limit_MBps"]))


def case_nicrun_json():
    d = odd_dir("nicrun")
    js = os.path.join(d, 'n"r\\.json')
    img = os.path.join(A.build, "fw", "fw_nic_link.img")
    rc, out, err = run([A.nicrun, "--quiet", "--check-link", "--drop", "0.05", "--seed", "3", "--json", js, img])
    check(rc == 0, "nicrun --json: exit %d %s" % (rc, err[-300:]))
    r = json.load(open(js))
    common(r, "nicrun", img)
    check(r["result"] == "PASS" and all(n["passed"] for n in r["nodes"]) and len(r["nodes"]) == 2, "nicrun: nodes passed")
    sw = r["switch"]
    check(sw["fault_drop"] > 0 and sw["rx_frames"] == sum(n["frames_sent"] for n in r["nodes"]),
          "nicrun: switch counters (drops %d)" % sw["fault_drop"])
    check(r["config"]["drop"] == 0.05 and r["config"]["seed"] == 3 and r["config"]["check_link"] is True,
          "nicrun: config echoes the options")
    # a failing image: the report says FAIL and why
    js2 = os.path.join(d, "trap.json")
    rc, out, err = run([A.nicrun, "--quiet", "--json", js2, os.path.join(A.build, "fw", "fw_trap_demo.img")])
    r = json.load(open(js2))
    check(rc == 1 and r["result"] == "FAIL" and "halted" in r["error"] and any(n["halted"] for n in r["nodes"]),
          "nicrun on a crashing image: FAIL, halted (%s)" % r["error"])


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for k in ("nicsim", "nicrun", "fwimage", "build", "out", "version"):
        ap.add_argument("--" + k, required=True)
    A = ap.parse_args()
    os.makedirs(A.out, exist_ok=True)
    fn = globals().get("case_" + A.case)
    if not fn:
        print("no case %s" % A.case)
        return 2
    fn()
    print("%s: %s" % (A.case, "PASS" if not FAILS else "%d FAILED" % len(FAILS)))
    return 0 if not FAILS else 1


if __name__ == "__main__":
    sys.exit(main())
