#!/usr/bin/env python3
"""check_package BUILD WORK: the .deb of the tools, the driver library and the firmware images
(issue 17, item 10). Builds it with CPack (build/CPackConfig.cmake), lists its contents with
dpkg-deb and checks the files a board host needs and the dependencies dpkg-shlibdeps found,
then unpacks it and runs what is inside: fwimage verifies the installed NCP image and nicsim runs
a short pingpong on the images it finds under share/nic (not the build tree's)."""
import glob
import json
import os
import shutil
import subprocess
import sys

FAILS = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def main():
    build, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    r = subprocess.run(["cpack", "--config", os.path.join(build, "CPackConfig.cmake"), "-G", "DEB", "-B", work],
                       capture_output=True, text=True)
    debs = glob.glob(os.path.join(work, "*.deb"))
    check(r.returncode == 0 and len(debs) == 1, "cpack -G DEB makes one .deb (%s)" % (r.stderr[-400:] or debs))
    if not debs:
        return 1
    deb = debs[0]
    listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
    files = {l.split()[-1].lstrip(".") for l in listing.splitlines() if l.strip()}
    want = ["/usr/bin/nicsim", "/usr/bin/nicsim-trace", "/usr/bin/nicrun", "/usr/bin/nicrun-trace", "/usr/bin/fwimage",
            "/usr/lib/libnic.a", "/usr/lib/libnicdrv.a", "/usr/lib/libnic_hal.a", "/usr/include/nic/nic.h",
            "/usr/include/nic/nicdrv.h", "/usr/include/nic/nic_abi.h", "/usr/include/nic/nic_regs.h",
            "/usr/include/nic/nic_memmap.h", "/usr/share/nic/fw/ncp.img", "/usr/share/nic/fw/ncp.elf",
            "/usr/share/nic/fw/ncp.mem", "/usr/share/nic/fw-static/ncp.img", "/usr/share/nic/fw-nonack/ncp.img",
            "/usr/share/nic/fw/fw_nic_link.img", "/usr/share/doc/nic/nicsim.md"]
    missing = [f for f in want if f not in files]
    check(not missing, "dpkg-deb -c lists the tools, library, headers, images, docs (missing: %s)" % missing)
    check(not any("CMakeFiles" in f or f.endswith(".o") for f in files), "no build-tree debris in the package")
    f = lambda field: subprocess.run(["dpkg-deb", "-f", deb, field], capture_output=True, text=True).stdout.strip()
    check(f("Package") == "nic-tools" and f("Version") == "0.1.0", "package nic-tools 0.1.0 (%s %s)" % (f("Package"), f("Version")))
    check("libcjson1" in f("Depends") and "libc6" in f("Depends"), "Depends from dpkg-shlibdeps: %s" % f("Depends"))
    root = os.path.join(work, "root")
    subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    usr = os.path.join(root, "usr")
    r = subprocess.run([os.path.join(usr, "bin", "fwimage"), "verify", os.path.join(usr, "share", "nic", "fw", "ncp.img")],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "ok: firmware" in r.stdout, "the packaged fwimage verifies the packaged NCP image")
    js = os.path.join(work, "run.json")
    r = subprocess.run([os.path.join(usr, "bin", "nicsim"), "--workload", "pingpong", "--nodes", "2", "--size", "256",
                        "--iters", "2", "--quiet", "--json", js], capture_output=True, text=True, timeout=300)
    ok = r.returncode == 0
    img = json.load(open(js))["firmware"]["image"] if ok else ""
    check(ok and os.path.realpath(img) == os.path.realpath(os.path.join(usr, "share", "nic", "fw", "ncp.img")),
          "the packaged nicsim runs on the packaged image (%s) %s" % (img, r.stderr[-300:]))
    shutil.rmtree(work, ignore_errors=True)
    print("package: %s" % ("PASS" if not FAILS else "%d FAILED" % len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
