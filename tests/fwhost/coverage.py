#!/usr/bin/env python3
"""Line coverage of the NCP's sources by the host-native tests (scripts/fwhost-coverage).

Reads the gcov data of both host builds of the NCP (NCP_FASTPATH=1 and 0: ncp_host_fast,
ncp_host_general) under BUILD_DIR with `gcov --json-format --stdout`, merges them per source line (a
line counts as executed if either build executed it; a line is executable if either build has code
for it) and prints per file and in total the executed / executable lines of the files under the
given source directories, then the unexecuted lines of each file (up to --list per file).

usage: coverage.py BUILD_DIR SRC_DIR... [--list N] [--min PERCENT]
"""
import argparse
import json
import os
import subprocess
import sys


def gcov_json(gcda):
    out = subprocess.run(["gcov", "--json-format", "--stdout", "-o", os.path.dirname(gcda), gcda],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True,
                         cwd=os.path.dirname(gcda)).stdout
    for chunk in out.decode().splitlines():
        chunk = chunk.strip()
        if chunk:
            yield json.loads(chunk)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("src_dirs", nargs="+")
    ap.add_argument("--list", type=int, default=12)
    ap.add_argument("--min", type=float, default=None)
    a = ap.parse_args()
    roots = [os.path.realpath(d) + os.sep for d in a.src_dirs]
    lines = {}  # file -> {line: executed}
    for dirpath, _, files in os.walk(a.build_dir):
        if "ncp_host_" not in dirpath:
            continue
        for f in files:
            if not f.endswith(".gcda"):
                continue
            for doc in gcov_json(os.path.abspath(os.path.join(dirpath, f))):
                cwd = doc.get("current_working_directory", "")
                for fi in doc["files"]:
                    path = os.path.realpath(os.path.join(cwd, fi["file"]))
                    if not any(path.startswith(r) for r in roots):
                        continue
                    per = lines.setdefault(path, {})
                    for ln in fi["lines"]:
                        n = ln["line_number"]
                        per[n] = per.get(n, False) or ln["count"] > 0
    if not lines:
        sys.exit("coverage.py: no gcov data (build with FWHOST_COVERAGE=ON and run the tests first)")
    top = os.path.commonpath([os.path.realpath(d) for d in a.src_dirs] + [os.getcwd()])
    tot_run = tot_all = 0
    print(f"{'file':40} {'lines':>7} {'run':>7} {'cover':>7}")
    for path in sorted(lines):
        per = lines[path]
        run = sum(1 for v in per.values() if v)
        tot_run += run
        tot_all += len(per)
        print(f"{os.path.relpath(path, top):40} {len(per):7} {run:7} {100.0 * run / len(per):6.1f}%")
    pct = 100.0 * tot_run / tot_all
    print(f"{'total':40} {tot_all:7} {tot_run:7} {pct:6.1f}%")
    if a.list:
        print("\nnot executed (line numbers):")
        for path in sorted(lines):
            miss = sorted(n for n, v in lines[path].items() if not v)
            if miss:
                shown = ", ".join(str(n) for n in miss[:a.list])
                more = f" ... (+{len(miss) - a.list})" if len(miss) > a.list else ""
                print(f"  {os.path.relpath(path, top)}: {shown}{more}")
    if a.min is not None and pct < a.min:
        sys.exit(f"coverage.py: {pct:.1f}% is below {a.min}%")


if __name__ == "__main__":
    main()
