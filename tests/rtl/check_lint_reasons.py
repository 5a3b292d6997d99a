#!/usr/bin/env python3
"""Every Verilator lint waiver in the RTL says why: a line with `verilator lint_off` must carry a
comment after the directive, or follow a comment line (`// lint_off: why`). A bare waiver hides a
warning without telling the next reader whether it still applies.

Usage: check_lint_reasons.py DIR... (searched recursively for .v, .sv, .vh, .svh, .vlt)"""
import os
import re
import sys

EXTS = (".v", ".sv", ".vh", ".svh", ".vlt")
DIRECTIVE = re.compile(r"verilator\s+lint_off\b")
# a reason on the same line: any comment text after the directive's own comment closes
SAME_LINE = re.compile(r"verilator\s+lint_off\s+[A-Z_]+(?:\s*\*/)?\s*//\s*\S")
PREV_COMMENT = re.compile(r"^\s*//\s*\S")


def check(path):
    bad = []
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if not DIRECTIVE.search(line):
            continue
        prev = lines[i - 1] if i else ""
        if SAME_LINE.search(line) or (PREV_COMMENT.match(prev) and not DIRECTIVE.search(prev)):
            continue
        bad.append(f"{path}:{i + 1}: lint_off without a reason (comment on this or the previous line)")
    return bad


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    files, bad, waivers = 0, [], 0
    for root in argv[1:]:
        for d, _dirs, names in os.walk(root):
            for n in sorted(names):
                if n.endswith(EXTS):
                    p = os.path.join(d, n)
                    files += 1
                    waivers += sum(1 for l in open(p, encoding="utf-8") if DIRECTIVE.search(l))
                    bad += check(p)
    for b in bad:
        print(b, file=sys.stderr)
    print(f"lint reasons: {files} files, {waivers} lint_off waivers, {len(bad)} without a reason")
    return 1 if bad or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
