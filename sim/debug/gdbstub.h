/*
 * gdbstub.h - a GDB remote-serial-protocol server for one RV32 core of the simulators (coresim,
 * and a node of nicsim/nicrun: sim/node/nodedbg.c). docs/debugging.md tells how to use it.
 *
 * Role: the protocol only (packets, the RV32 target description, software breakpoints as
 * `ebreak` written into memory); the simulator supplies the target (struct gdb_target): halt and
 * resume the core through its debug port (rv_core.v), registers and memory through the model's
 * backdoor. The simulator calls gdbstub_poll() once per simulated cycle (cheap while the core
 * runs); while the core is halted, gdbstub_poll() serves GDB and returns only when GDB resumes
 * it, so the simulation (every node of a cluster) is frozen meanwhile.
 *
 * Supported: ? g G p P m M X c s (with an address) Ctrl-C, Z0/z0 (software), Z1/z1 (hardware,
 * as many as the target has), Z2-Z4/z2-z4 (write, read, access watchpoints, 8 of 1..4096 bytes,
 * if the target reports its core's data accesses: gdbstub_access), qSupported, qXfer:features:read (target.xml: riscv:rv32, x0..x31
 * and pc), qAttached, thread queries (one thread), D (detach: the run continues without GDB),
 * k (kill: the simulator ends the run). Stop replies: T05 (breakpoint, step), T05watch/rwatch/
 * awatch:ADDR; (a watchpoint), T02 (Ctrl-C).
 *
 * Contract: single-threaded; one client; blocking I/O while halted, non-blocking polls while the
 * core runs.
 */
#ifndef GDBSTUB_H
#define GDBSTUB_H

#include <stdint.h>
#include <stdio.h>

struct gdb_target {
    void *ctx;
    /* 0..31 = x0..x31, 32 = pc (the next instruction); 0 or -1 */
    int (*reg_read)(void *ctx, unsigned n, uint32_t *v);
    int (*reg_write)(void *ctx, unsigned n, uint32_t v);
    /* 0, or -1 if any byte is outside the memory the backdoor reaches */
    int (*mem_read)(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len);
    int (*mem_write)(void *ctx, uint32_t addr, const uint8_t *buf, uint32_t len);
    /* hardware breakpoint slot i (0..hw_bps-1) at addr, or off */
    void (*hw_bp)(void *ctx, unsigned i, uint32_t addr, int on);
    unsigned hw_bps;
    /* level: halt between instructions */
    void (*halt_req)(void *ctx, int on);
    /* from halted: run (step: one instruction, then halt again) from pc */
    void (*resume)(void *ctx, uint32_t pc, int step);
    int (*halted)(void *ctx);
    /* optional (NULL: no watchpoints): the stub has watchpoints (on) or none left (off); while on,
     * the simulator calls gdbstub_access() for every data request of the core */
    void (*watch)(void *ctx, int on);
};

typedef struct gdbstub gdbstub_t;

enum gdbstub_state { GDBSTUB_RUN, GDBSTUB_BUSY, GDBSTUB_KILL, GDBSTUB_DETACHED };

/* Listen on 127.0.0.1:port (0: any free port) and wait for GDB to connect; "NAME: gdb: listening
 * on port P" goes to log first (the port actually bound). The core is asked to halt at once:
 * GDB finds it halted before its first instruction. NULL on a socket error (errno). */
gdbstub_t *gdbstub_open(int port, const struct gdb_target *t, const char *name, FILE *log);
/* Once per simulated cycle. GDBSTUB_BUSY: a halt or step is under way (the caller must not skip
 * idle cycles); GDBSTUB_KILL: GDB killed the run (or the connection broke); otherwise the core
 * runs (GDBSTUB_RUN) or GDB has detached. */
enum gdbstub_state gdbstub_poll(gdbstub_t *g);
/* The core's data request at this cycle (address, byte enables, store): a watchpoint it touches
 * halts the core (it stops after the accessing instruction, within the few instructions already
 * issued behind it) and the stop reply names the watchpoint's address. NULL is accepted. */
void gdbstub_access(gdbstub_t *g, uint32_t addr, unsigned be, int write);
/* The run ended (status: 0 pass, else the exit code): GDB gets "W<status>" if it waits for a
 * stop; the connection is closed. NULL is accepted. */
void gdbstub_close(gdbstub_t *g, int status);

#endif /* GDBSTUB_H */
