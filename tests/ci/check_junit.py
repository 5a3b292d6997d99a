#!/usr/bin/env python3
"""check_junit SRC BUILD WORK: scripts/run-tests writes JUnit XML (ctest --output-junit) with the
tests it ran and their outcomes, --quick runs only tests labelled quick, and every test of the
suite has exactly one of the labels quick and slow (issue 17, item 9)."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

FAILS = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def labels(build):
    """{test: [labels]} from ctest --show-only=json-v1"""
    import json
    r = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True)
    out = {}
    for t in json.loads(r.stdout)["tests"]:
        lab = []
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                lab = p["value"]
        out[t["name"]] = lab
    return out


def main():
    src, build, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    junit = os.path.join(work, "junit.xml")
    if os.path.exists(junit):
        os.remove(junit)
    env = dict(os.environ, NIC_NO_BUILD="1", BUILD_DIR=os.path.relpath(build, src), JUNIT=junit)
    r = subprocess.run([os.path.join(src, "scripts", "run-tests"), "-R", r"^unit\.(crc32|fwimage)$"],
                       capture_output=True, text=True, env=env, cwd=src)
    check(r.returncode == 0, "scripts/run-tests -R unit.(crc32|fwimage): exit %d" % r.returncode)
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError) as e:
        check(False, "junit.xml parses (%s)" % e)
        return 1
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    check(set(cases) == {"unit.crc32", "unit.fwimage"}, "junit.xml lists the two tests run (%s)" % sorted(cases))
    check(suite.get("failures") == "0" and all(c.find("failure") is None for c in cases.values()),
          "junit.xml: no failures")
    check(all(c.get("status") == "run" for c in cases.values()), "junit.xml: both ran")
    # every test quick xor slow; --quick selects the quick ones only
    lab = labels(build)
    bad = [t for t, l in lab.items() if ("quick" in l) == ("slow" in l)]
    check(len(lab) > 100 and not bad, "every one of %d tests is quick or slow, not both (%s; a new tests/ directory "
          "starts its CMakeLists.txt with cmake_language(DEFER CALL nic_speed_labels))" % (len(lab), bad[:5]))
    check(all("slow" in lab[t] for t in ("system.soak", "rtl.synth", "sanitize.host") if t in lab),
          "the long tests are slow")
    check(all("quick" in l for t, l in lab.items() if re.match(r"^(unit|models)\.", t)), "unit and model tests are quick")
    r = subprocess.run([os.path.join(src, "scripts", "run-tests"), "--quick", "-N"], capture_output=True, text=True,
                       env=env, cwd=src)
    listed = re.findall(r"Test +#\d+: (\S+)", r.stdout)
    check(r.returncode == 0 and listed and all("quick" in lab.get(t, []) for t in listed)
          and len(listed) == sum("quick" in l for l in lab.values()),
          "scripts/run-tests --quick lists exactly the quick tests (%d)" % len(listed))
    print("junit: %s" % ("PASS" if not FAILS else "%d FAILED" % len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
