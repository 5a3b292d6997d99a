#!/usr/bin/env python3
"""ci.docs: what the docs name exists (issue 17 item 12, "docs stay true").

  - every repository path in backticks in README.md, CONTRIBUTING.md and docs/*.md
    (`scripts/...`, `sim/...`, `tests/...`, ...) names a file or directory of the checkout;
  - every option in a backticked nicsim, nicrun or coresim command line is one the tool's --help
    lists (a renamed or removed option makes the docs' commands fail).

usage: check_docs.py SOURCE_DIR BIN_DIR
"""
import glob
import os
import re
import subprocess
import sys

ROOTS = ("scripts", "tests", "docs", "sim", "firmware", "hal", "host-driver", "cmake", "linker", ".ci")
PATH = re.compile(r"`((?:%s)/[A-Za-z0-9_./\-]+)`" % "|".join(re.escape(r) for r in ROOTS))
SPAN = re.compile(r"`([^`\n]+)`")
CMD = re.compile(r"(?:build/bin/|bin/)?(nicsim|nicrun|coresim)\s")
OPT = re.compile(r"\s(--[a-z0-9][a-z0-9-]*)")


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    src, bindir = argv
    docs = [os.path.join(src, f) for f in ("README.md", "CONTRIBUTING.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    docs = [d for d in docs if os.path.exists(d)]
    helps = {}
    for tool in ("nicsim", "nicrun", "coresim"):
        p = subprocess.run([os.path.join(bindir, tool), "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        helps[tool] = set(re.findall(r"(--[a-z0-9][a-z0-9-]*)", p.stdout))
        if len(helps[tool]) < 5:
            sys.exit("ci.docs: %s --help lists %d options: %s" % (tool, len(helps[tool]), p.stdout[:300]))
    bad, paths, opts = [], 0, 0
    for d in docs:
        text = open(d, encoding="utf-8").read()
        rel = os.path.relpath(d, src)
        for m in PATH.finditer(text):
            p = m.group(1).rstrip(".,:")
            paths += 1
            if not os.path.exists(os.path.join(src, p)):
                bad.append("%s:%d: `%s` does not exist" % (rel, text.count("\n", 0, m.start()) + 1, p))
        for m in SPAN.finditer(text):
            c = CMD.match(m.group(1))
            if not c:
                continue
            for o in OPT.findall(m.group(1)):
                opts += 1
                if o not in helps[c.group(1)]:
                    bad.append("%s:%d: `%s` uses %s, which %s --help does not list"
                               % (rel, text.count("\n", 0, m.start()) + 1, m.group(1), o, c.group(1)))
    for b in bad:
        print(b)
    print("ci.docs: %d files, %d paths, %d tool options checked; %d wrong" % (len(docs), paths, opts, len(bad)))
    return 1 if bad or paths < 50 or opts < 50 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
