#!/usr/bin/env python3
"""check_presets SRC WORK: CMake presets instead of sticky -D options (issue 17, item 8).

The presets default, static, nonack, debug, asan and ci exist, each in its own directory except
ci (build/, the default configuration); the base preset sets every firmware option to the
default cmake/FirmwareOptions.cmake declares; `scripts/build -DNCP_LOOKUP=static` is refused (build/
would keep it); a directory configured with a preset and -DNCP_LOOKUP=static gets dynamic back
when configured with the preset again; the static preset sets NCP_LOOKUP=static."""
import json
import os
import re
import shutil
import subprocess
import sys

FAILS = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def cache(d, key):
    m = re.search(r"^%s:[A-Z]+=(.*)$" % key, open(os.path.join(d, "CMakeCache.txt")).read(), re.M)
    return m.group(1) if m else None


def main():
    src, work = sys.argv[1], sys.argv[2]
    p = json.load(open(os.path.join(src, "CMakePresets.json")))
    conf = {c["name"]: c for c in p["configurePresets"]}
    for name in ("default", "static", "nonack", "debug", "asan", "ci"):
        check(name in conf and not conf[name].get("hidden"), "configure preset %s" % name)
    check(conf["static"]["cacheVariables"]["NCP_LOOKUP"] == "static", "static: NCP_LOOKUP=static")
    check(conf["nonack"]["cacheVariables"]["NCP_NACK"] == "OFF", "nonack: NCP_NACK=OFF")
    check(conf["asan"]["cacheVariables"]["NIC_SANITIZE"] == "ON", "asan: NIC_SANITIZE=ON")
    check(conf["debug"]["cacheVariables"]["CMAKE_BUILD_TYPE"] == "Debug", "debug: CMAKE_BUILD_TYPE=Debug")
    base = conf["base"]["cacheVariables"]
    opts = open(os.path.join(src, "cmake", "FirmwareOptions.cmake")).read()
    names = re.search(r"set\(NCP_FW_OPTIONS ([^)]*)\)", opts).group(1).split()
    check(all(n in base for n in names), "the base preset sets every firmware option (%s)" % " ".join(n for n in names if n not in base))
    # ... to the defaults FirmwareOptions.cmake declares (a default changed there must change here)
    defaults = dict(re.findall(r'^set\((NCP_\w+) "?([^" ]+)"? CACHE', opts, re.M))
    defaults.update(re.findall(r'^option\((NCP_\w+) "[^"]*" (ON|OFF)\)', opts, re.M))
    diff = {n: (base.get(n), defaults.get(n)) for n in names if base.get(n) != defaults.get(n)}
    check(len(defaults) == len(names) and not diff,
          "the base preset's values are FirmwareOptions.cmake's defaults (differ: %s)" % diff)
    dirs = {}
    for n, c in conf.items():
        if c.get("hidden"):
            continue
        while "binaryDir" not in c:
            c = conf[c["inherits"]]
        dirs[n] = c["binaryDir"]
    check(len({dirs[n] for n in ("default", "static", "nonack", "debug", "asan")}) == 5,
          "every preset but ci has its own directory")
    check(dirs["ci"] == dirs["default"], "ci builds build/ like the default")
    tp = {t["name"]: t for t in p["testPresets"]}
    check(tp.get("ci", {}).get("output", {}).get("outputJUnitFile") == "junit.xml", "test preset ci writes junit.xml")
    # scripts/build refuses -D into build/
    r = subprocess.run([os.path.join(src, "scripts", "build"), "-DNCP_LOOKUP=static"], capture_output=True, text=True,
                       env=dict(os.environ, BUILD_DIR="build"))
    check(r.returncode == 2 and "for every later run" in r.stderr and "BUILD_DIR=" in r.stderr,
          "scripts/build -DNCP_LOOKUP=static is refused (exit %d): %s" % (r.returncode, r.stderr.strip()[:200]))
    r = subprocess.run([os.path.join(src, "scripts", "build"), "nosuch"], capture_output=True, text=True)
    check(r.returncode == 2 and "no preset 'nosuch'" in r.stderr, "scripts/build nosuch: no such preset")
    # a preset re-applies its values over an earlier -D
    shutil.rmtree(work, ignore_errors=True)
    r = subprocess.run(["cmake", "-S", src, "--preset", "default", "-B", work, "-DNCP_LOOKUP=static",
                        "-DNCP_CACHE_WAYS=8"], capture_output=True, text=True)
    check(r.returncode == 0 and cache(work, "NCP_LOOKUP") == "static" and cache(work, "NCP_CACHE_WAYS") == "8",
          "configure with -DNCP_LOOKUP=static -DNCP_CACHE_WAYS=8: taken (%s)" % r.stderr[-300:])
    r = subprocess.run(["cmake", "-S", src, "--preset", "default", "-B", work], capture_output=True, text=True)
    check(r.returncode == 0 and cache(work, "NCP_LOOKUP") == "dynamic" and cache(work, "NCP_CACHE_WAYS") == "4",
          "configure with the default preset again: dynamic and 4 ways (got %s, %s)"
          % (cache(work, "NCP_LOOKUP"), cache(work, "NCP_CACHE_WAYS")))
    shutil.rmtree(work, ignore_errors=True)
    print("presets: %s" % ("PASS" if not FAILS else "%d FAILED" % len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
