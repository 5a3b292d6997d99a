#!/usr/bin/env python3
"""gdb_test.py - drive a simulator's GDB stub (--gdb) with Debian's gdb-multiarch in batch mode.

usage: gdb_test.py MODE GDB ELF -- SIMULATOR ARGS...

The simulator is started with `--gdb 0` added (any free port; it prints the port on stderr),
then GDB runs the MODE's script against ELF and its output is checked line by line, then the
simulator must exit with status 0 (the run completed and passed).

Modes:
  coresim  tests/core/gdbprog.c on coresim: software breakpoint at gdb_mark, a global read at two
           hits (0 then 1), pc at the breakpoint, stepi moves the pc by one instruction, a
           hardware breakpoint at gdb_check, a memory write (gdb_poke) and a register write (a0)
           that the program checks (it fails without them), continue to a normal exit.
  nicrun:FUNC:VAR:VALUE  a firmware image on nicsim/nicrun's --gdb-node: break at FUNC, VAR
           reads VALUE (print/x), stepi moves the pc, continue: the cluster run passes; done twice,
           once with a second of wall time at the breakpoint: every node's PASS cycle is the same.
  watch    watchpoints (Z2-Z4) with gdb-multiarch. On coresim (tests/core/gdbprog.c): `watch
           gdb_counter` stops at its first two changes (0 -> 1, 1 -> 3), then the writes the
           program checks (as in coresim mode) and it exits normally. On a node
           (tests/fw/selftest.c): `rwatch data_word` stops at the read with its value, `watch
           last_cause` at both writes (0 -> 11 on the ecall, 11 -> 0x80000007 on the timer
           interrupt) in selftest_hook, `awatch timer_irqs` at the handler's read; the run passes.
  raw      the protocol without GDB (a socket client): qSupported, ?, g size, target.xml, m of
           an unmapped address answers an error, Z1 out of slots, 8 watchpoints
           and a ninth refused, a zero-length one refused, c then Ctrl-C halts (T02),
           D detaches and the run completes.
  kill     k ends the run: the simulator stops as on a signal, saying why: exit status 137
           (128 + SIGKILL) and its --json report written, marked partial, "signal": "SIGKILL".
"""
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import time

TIMEOUT = 120


def start_sim(cmd):
    p = subprocess.Popen(cmd + ["--gdb", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port, seen, t0 = None, [], time.time()
    while port is None:
        if time.time() - t0 > 60:
            p.kill()
            sys.exit("no 'gdb: listening' line from the simulator: %s" % "".join(seen))
        r, _, _ = select.select([p.stderr], [], [], 1.0)
        if not r:
            if p.poll() is not None:
                sys.exit("simulator exited (%d) before listening: %s%s" % (p.returncode, "".join(seen), p.stderr.read()))
            continue
        line = p.stderr.readline()
        seen.append(line)
        m = re.search(r"gdb: listening on port (\d+)", line)
        if m:
            port = int(m.group(1))
    return p, port


def finish_sim(p):
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        sys.exit("simulator did not finish after GDB left\n" + out + err)
    return p.returncode, out, err


def run_gdb(gdb, elf, port, cmds):
    args = [gdb, "-nx", "-batch", "-ex", "set pagination off", "-ex", "set confirm off",
            "-ex", "target remote 127.0.0.1:%d" % port]
    for c in cmds:
        args += ["-ex", c]
    r = subprocess.run(args + [elf], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
    return r.stdout


def expect(out, patterns):
    """each pattern must match, in order"""
    pos = 0
    for pat in patterns:
        m = re.compile(pat, re.M).search(out, pos)
        if not m:
            sys.exit("GDB output lacks /%s/ (after offset %d):\n%s" % (pat, pos, out))
        pos = m.end()


def sym_addr(elf, name):
    out = subprocess.run(["riscv64-unknown-elf-nm", elf], stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    sys.exit("%s: no symbol %s" % (elf, name))


def mode_coresim(gdb, elf, sim):
    p, port = start_sim(sim)
    mark = sym_addr(elf, "gdb_mark")
    out = run_gdb(gdb, elf, port, [
        "break gdb_mark", "continue", "print/x $pc", "print gdb_counter", "continue", "print gdb_counter",
        "print $pc == gdb_mark", "stepi", "print/x $pc", "delete", "hbreak gdb_check", "continue",
        "print/x $pc", "set var gdb_poke = 0x1234abcd", "set $a0 = 7", "print/x gdb_poke", "print $a0",
        "delete", "continue"])
    rc, sout, serr = finish_sim(p)
    expect(out, [r"Breakpoint 1 at 0x%x" % mark,
                 r"Breakpoint 1, (0x[0-9a-f]+ in )?gdb_mark",
                 r"\$1 = 0x%x\b" % mark,
                 r"\$2 = 0\b",
                 r"Breakpoint 1, (0x[0-9a-f]+ in )?gdb_mark",
                 r"\$3 = 1\b",
                 r"\$4 = 1\b",
                 r"\$5 = 0x%x\b" % (mark + 4),
                 r"Hardware assisted breakpoint 2 at",
                 r"Breakpoint 2, (0x[0-9a-f]+ in )?gdb_check",
                 r"\$6 = 0x%x\b" % sym_addr(elf, "gdb_check"),
                 r"\$7 = 0x1234abcd",
                 r"\$8 = 7\b",
                 r"exited normally"])
    if rc != 0 or "coresim: PASS" not in serr:
        sys.exit("coresim did not pass (exit %d):\n%s%s\nGDB:\n%s" % (rc, sout, serr, out))
    print(out)
    print("gdb_test coresim: OK")


def nicrun_session(gdb, elf, sim, func, var, val, pause):
    p, port = start_sim(sim)
    fa = sym_addr(elf, func)
    cmds = ["break " + func, "continue", "print/x $pc", "print/x " + var, "stepi", "print/x $pc"]
    if pause:  # wall time spent halted and MMIO reads (forked copies) must not change the run
        cmds += ["shell sleep 1", "x/2wx 0x40002000", "x/wx 0x40008000"]
    # a hardware breakpoint through nic_top's debug port: the final printf
    cmds += ["delete", "hbreak printf", "continue", "print $pc == printf", "delete", "continue"]
    out = run_gdb(gdb, elf, port, cmds)
    rc, sout, serr = finish_sim(p)
    mmio = [r"0x40002000:\s+0x544d5231\s+0x00010000", r"0x40008000:\s+0x44424c31"] if pause else []
    expect(out, [r"Breakpoint 1 at 0x%x" % fa, r"Breakpoint 1, (0x[0-9a-f]+ in )?%s" % func, r"\$1 = 0x%x\b" % fa,
                 r"\$2 = %s\b" % re.escape(val), r"\$3 = 0x(?!%x\b)[0-9a-f]+" % fa] + mmio +
                [r"Hardware assisted breakpoint 2 at", r"Breakpoint 2, (0x[0-9a-f]+ in )?printf", r"\$4 = 1\b",
                 r"exited normally"])
    if rc != 0 or "PASS" not in sout:
        sys.exit("the run did not pass (exit %d):\n%s%s\nGDB:\n%s" % (rc, sout, serr, out))
    print(out)
    return sorted(re.findall(r"node \d+: PASS at cycle \d+", sout))


def mode_nicrun(gdb, elf, sim, func, var, val):
    """break at func on the --gdb-node, read var (print/x: val), stepi, continue: PASS; twice, the
    second time with GDB pausing a second of wall time at the breakpoint: every node's PASS cycle
    must be the same (the cluster is frozen while the core is halted)."""
    a = nicrun_session(gdb, elf, sim, func, var, val, False)
    b = nicrun_session(gdb, elf, sim, func, var, val, True)
    if not a or a != b:
        sys.exit("simulated time moved while the node was halted: %s vs %s" % (a, b))
    print("PASS cycles, both sessions: %s" % a)
    print("gdb_test nicrun: OK")


class Rsp:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""

    def send(self, data):
        cs = sum(data.encode()) & 0xFF
        self.s.sendall(b"$" + data.encode() + b"#%02x" % cs)
        return self.reply()

    def reply(self):
        while True:
            m = re.search(rb"\$([^#]*)#([0-9a-f]{2})", self.buf)
            if m:
                self.buf = self.buf[m.end():]
                data = m.group(1)
                if sum(data) & 0xFF != int(m.group(2), 16):
                    sys.exit("bad checksum from the stub")
                self.s.sendall(b"+")
                return data.decode()
            chunk = self.s.recv(65536)
            if not chunk:
                sys.exit("the stub closed the connection")
            self.buf += chunk


def mmio_checks(c):
    """a node's MMIO registers through m/M (nicsim/nicrun)"""
    # MMIO registers, read in a forked copy of the simulator (no side effect on the run): every
    # block's ID (little-endian bytes), a part of a word, several words, holes refused, writes refused
    ids = [0x48494631, 0x494E5431, 0x544D5231, 0x444D4131, 0x4D414331, 0x50524631, 0x434F4E31,
           0x54535431, 0x44424C31]
    for i, v in enumerate(ids):
        r = c.send("m4000%x000,4" % i)
        assert r == v.to_bytes(4, "little").hex(), "block %d ID: %s" % (i, r)
    assert c.send("m40002001,2") == ids[2].to_bytes(4, "little")[1:3].hex(), "part of a word"
    r = c.send("m40002000,10")
    assert len(r) == 32 and r.startswith(ids[2].to_bytes(4, "little").hex()), "four words: " + r
    assert c.send("m40009000,4").startswith("E"), "no block at 0x9000: an error"
    assert c.send("m4000fffe,4").startswith("E"), "beyond the MMIO window: an error"
    assert c.send("M40002010,4:00000000").startswith("E"), "MMIO writes are refused"
    # the cluster is frozen and a read leaves no trace: mtime and the doorbell's head twice, equal
    assert c.send("m40002008,4") == c.send("m40002008,4"), "mtime moved between two reads at one halt"
    assert c.send("m4000800c,8") == c.send("m4000800c,8"), "a doorbell head read changed the next"


def mode_raw(_gdb, _elf, sim):
    p, port = start_sim(sim)
    c = Rsp(port)
    r = c.send("qSupported:swbreak+;hwbreak+")
    assert "qXfer:features:read+" in r, r
    assert c.send("?").startswith("T05"), "first stop"
    x = c.send("qXfer:features:read:target.xml:0,fff")
    assert x.startswith("l") and "riscv:rv32" in x and 'name="pc"' in x, x
    g = c.send("g")
    assert len(g) == 33 * 8, len(g)
    assert c.send("m20000000,4").startswith("E"), "unmapped memory must be an error"
    assert c.send("p20") == g[32 * 8:], "p of pc = g's pc"
    t0 = c.send("p5")
    assert c.send("P5=78563412") == "OK"
    assert c.send("p5") == "78563412", "register write read back"
    assert c.send("P5=" + t0) == "OK"
    for i in range(4):
        assert c.send("Z1,%x,4" % (0x10 + 4 * i)) == "OK"
    assert c.send("Z1,20,4").startswith("E"), "a fifth hardware breakpoint must be refused"
    for i in range(4):
        assert c.send("z1,%x,4" % (0x10 + 4 * i)) == "OK"
    for i in range(8):  # watchpoints: write, read, access
        assert c.send("Z%d,%x,4" % (2 + i % 3, 0x10000 + 4 * i)) == "OK", "watchpoint %d" % i
    assert c.send("Z2,20000,4").startswith("E"), "a ninth watchpoint must be refused"
    assert c.send("Z2,20000,0").startswith("E"), "a zero-length watchpoint must be refused"
    for i in range(8):
        assert c.send("z%d,%x,4" % (2 + i % 3, 0x10000 + 4 * i)) == "OK"
    if "coresim" not in os.path.basename(sim[0]):  # a node: its NIC's register blocks
        mmio_checks(c)
    c.s.sendall(b"$c#63\x03")  # together: the stub halts within its poll interval
    r = c.reply()
    assert r.startswith("T02"), "Ctrl-C stop reply: " + r
    assert c.send("D") == "OK"
    c.s.close()
    rc, sout, serr = finish_sim(p)
    if rc != 0:
        sys.exit("the run did not pass after detach (exit %d):\n%s%s" % (rc, sout, serr))
    print("gdb_test raw: OK")


def mode_watch(gdb, elf, sim):
    p, port = start_sim(sim)
    on_core = os.path.basename(sim[0]).startswith("coresim")
    if on_core:
        # then the writes gdbprog needs to pass (as in mode coresim)
        cmds = ["watch gdb_counter", "continue", "continue", "delete", "hbreak gdb_check", "continue",
                "set var gdb_poke = 0x1234abcd", "set $a0 = 7", "delete", "continue"]
        pats = [r"Hardware watchpoint 1: gdb_counter",
                r"Old value = 0\s+New value = 1\b", r"gdb_mark",
                r"Old value = 1\s+New value = 3\b", r"gdb_mark",
                r"Breakpoint 2, (0x[0-9a-f]+ in )?gdb_check", r"exited normally"]
    else:
        cmds = ["rwatch data_word", "continue", "delete", "watch last_cause", "continue", "continue", "delete",
                "awatch timer_irqs", "continue", "delete", "continue"]
        # the read of data_word is main's (check's argument): where GDB reports the stop depends on
        # the code after the load (in check at -O2, still in main at -O3, check inlined)
        pats = [r"Hardware read watchpoint 1: data_word", r"Value = 1592651789\b", r"(in check |main \(\) at \S*selftest\.c)",
                r"Hardware watchpoint 2: last_cause",
                r"Old value = 0\s+New value = 11\b", r"in selftest_hook ",
                r"Old value = 11\s+New value = 2147483655\b", r"in selftest_hook ",
                r"Hardware access \(read/write\) watchpoint 3: timer_irqs", r"Value = 0\b", r"in selftest_hook ",
                r"exited normally"]
    out = run_gdb(gdb, elf, port, cmds)
    rc, sout, serr = finish_sim(p)
    expect(out, pats)
    if rc != 0 or "PASS" not in sout + serr:
        sys.exit("the run did not pass (exit %d):\n%s%s\nGDB:\n%s" % (rc, sout, serr, out))
    print(out)
    print("gdb_test watch: OK")


def mode_kill(_gdb, _elf, sim):
    """k from the client ends the run: exit status 137, the reason on stderr, the report partial"""
    import json
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "run.json")
        p, port = start_sim(sim + ["--json", report])
        c = Rsp(port)
        assert c.send("?").startswith("T05")
        c.s.sendall(b"$k#6b")
        rc, sout, serr = finish_sim(p)
        if rc != 128 + 9 or "killed by gdb" not in serr:
            sys.exit("after k: exit %d, want 137 with 'killed by gdb':\n%s%s" % (rc, sout, serr))
        try:
            with open(report) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit("after k: the --json report is missing or invalid (%s)" % e)
        if r.get("partial") is not True or r.get("signal") != "SIGKILL":
            sys.exit("after k: the report is not marked partial by SIGKILL: partial=%r signal=%r"
                     % (r.get("partial"), r.get("signal")))
    print("gdb_test kill: OK")


def main():
    if len(sys.argv) < 5 or "--" not in sys.argv:
        sys.exit(__doc__)
    k = sys.argv.index("--")
    mode, gdb, elf = sys.argv[1:4]
    extra = []
    if mode.startswith("nicrun:"):  # nicrun:FUNC:VAR:VALUE
        mode, *extra = mode.split(":")
    if mode not in ("raw", "kill") and not shutil.which(gdb):
        print("gdb_test: %s not found (scripts/setup installs gdb-multiarch): skipped" % gdb)
        sys.exit(77)
    sim = sys.argv[k + 1:]
    {"coresim": mode_coresim, "nicrun": mode_nicrun, "raw": mode_raw, "kill": mode_kill,
     "watch": mode_watch}[mode](gdb, elf, sim, *extra)


if __name__ == "__main__":
    main()
