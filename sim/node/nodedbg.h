/*
 * nodedbg.h - debugging one node of a cluster (docs/debugging.md): the GDB stub on its core
 * (--gdb PORT --gdb-node N), an instruction trace (--trace-insn FILE, node --trace-node, window
 * --trace-from/--trace-to in cycles) and the FST waveform window and scopes (--fst-start,
 * --fst-stop, --fst-scope; the waveform itself is the tools' --fst).
 *
 * Role: the options shared by nicsim and nicrun, so each tool only lists NODEDBG_LONG_OPTIONS
 * in its getopt table, hands unknown options to nodedbg_option(), and calls nodedbg_attach()
 * after creating the cluster and nodedbg_finish() with its exit status.
 *
 * Contract: one per run; single-threaded.
 */
#ifndef NODEDBG_H
#define NODEDBG_H

#include <stdint.h>
#include <stdio.h>

#include "cluster.h"

#define NODEDBG_OPT_BASE 0x4400
#define NODEDBG_LONG_OPTIONS                                                                                   \
    { "gdb", 1, 0, NODEDBG_OPT_BASE + 0 }, { "gdb-node", 1, 0, NODEDBG_OPT_BASE + 1 },                        \
        { "trace-insn", 1, 0, NODEDBG_OPT_BASE + 2 }, { "trace-from", 1, 0, NODEDBG_OPT_BASE + 3 },           \
        { "trace-to", 1, 0, NODEDBG_OPT_BASE + 4 }, { "fst-start", 1, 0, NODEDBG_OPT_BASE + 5 },              \
        { "fst-stop", 1, 0, NODEDBG_OPT_BASE + 6 }, { "fst-scope", 1, 0, NODEDBG_OPT_BASE + 7 }

/* usage text for the options above */
#define NODEDBG_USAGE                                                                                          \
    "  --gdb PORT           GDB remote stub on one node's core (127.0.0.1:PORT, 0: any free port,\n"           \
    "                       printed): the run waits for GDB and starts with that core halted; while it\n"     \
    "                       is halted the whole cluster is frozen (docs/debugging.md)\n"                      \
    "  --gdb-node N         the node --gdb debugs (default 0)\n"                                               \
    "  --trace-insn FILE    instruction trace of node --trace-node: cycle, pc, function+offset,\n"            \
    "                       disassembly, register written, load/store address and data\n"                    \
    "  --trace-from C --trace-to C   its cycle window (default: the whole run)\n"                             \
    "  --fst-start C --fst-stop C    the --fst waveform's cycle window (default: the whole run)\n"            \
    "  --fst-scope S        record only scope S of the NIC and below (e.g. u_core, u_dma.u_q;\n"               \
    "                       repeatable; default: everything)\n"

#define NODEDBG_MAX_SCOPES 8

struct nodedbg_opts {
    int gdb_port; /* -1: no GDB */
    unsigned gdb_node;
    const char *trace_path;
    uint64_t trace_from, trace_to;
    uint64_t fst_start, fst_stop;
    const char *fst_scope[NODEDBG_MAX_SCOPES];
    unsigned fst_scopes;
};

typedef struct nodedbg nodedbg_t;

void nodedbg_opts_default(struct nodedbg_opts *o);
/* 1: the option was ours and its value good; 0: not ours; -1: ours, bad value (message on err) */
int nodedbg_option(struct nodedbg_opts *o, int opt, const char *arg, const char *tool, FILE *err);
/* Before the cluster runs: opens the trace, configures the waveform of trace_node (before the
 * tool's node_trace_open), waits for GDB. image: the firmware image; its ELF (X.img -> X.elf) gives
 * the trace its symbols. NULL on a setup error (message on err); otherwise a handle (also when
 * nothing was asked). */
nodedbg_t *nodedbg_attach(const struct nodedbg_opts *o, cluster_t *c, unsigned trace_node, const char *image,
                          const char *tool, FILE *err);
/* After the run: GDB learns the exit status, the trace is flushed. 0, or -1 if the trace could not
 * be written completely. NULL accepted. */
int nodedbg_finish(nodedbg_t *d, int status);

#endif /* NODEDBG_H */
