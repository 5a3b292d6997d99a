/* nodedbg.c - GDB, instruction trace and waveform window on a node (nodedbg.h). */
#define _POSIX_C_SOURCE 200809L
#include "nodedbg.h"

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub.h"
#include "report.h"
#include "nic_model.h"
#include "nic_regs.h"
#include "rvdis.h"

#define MEMQ 4 /* data requests issued, not yet retired (the core keeps at most two) */

struct memreq {
    uint32_t addr, wdata;
    uint8_t we, be;
};

struct nodedbg {
    cluster_t *cl;
    const char *tool;
    /* GDB */
    gdbstub_t *gdb;
    node_t *gn;
    struct nic_pins *gp;
    bool pc_set;
    uint32_t pc;
    bool want_halt, seen_reset, booted; /* the first halt waits for the firmware's boot */
    bool watching; /* GDB has watchpoints: the probe reports gn's data requests to the stub */
    /* instruction trace */
    node_t *tn;
    FILE *tf;
    rvsyms_t *syms;
    uint64_t from, to;
    struct memreq mq[MEMQ];
    unsigned mq_head, mq_n;
    uint64_t lines;
    bool tf_err;
};

void nodedbg_opts_default(struct nodedbg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gdb_port = -1;
    o->trace_to = UINT64_MAX;
    o->fst_stop = UINT64_MAX;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return errno || end == s || *end || *s == '-' ? -1 : 0;
}

int nodedbg_option(struct nodedbg_opts *o, int opt, const char *arg, const char *tool, FILE *err)
{
    static const char *const names[] = { "gdb", "gdb-node", "trace-insn", "trace-from",
                                         "trace-to", "fst-start", "fst-stop", "fst-scope" };
    uint64_t v = 0;
    int k = opt - NODEDBG_OPT_BASE;

    if (k < 0 || k > 7)
        return 0;
    if (k != 2 && k != 7 && parse_u64(arg, &v))
        goto bad;
    switch (k) {
    case 0:
        if (v > 65535)
            goto bad;
        o->gdb_port = (int)v;
        break;
    case 1:
        if (v >= CLUSTER_MAX_NODES)
            goto bad;
        o->gdb_node = (unsigned)v;
        break;
    case 2:
        o->trace_path = arg;
        break;
    case 3:
        o->trace_from = v;
        break;
    case 4:
        o->trace_to = v;
        break;
    case 5:
        o->fst_start = v;
        break;
    case 6:
        o->fst_stop = v;
        break;
    case 7:
        if (o->fst_scopes == NODEDBG_MAX_SCOPES || !*arg)
            goto bad;
        o->fst_scope[o->fst_scopes++] = arg;
        break;
    }
    return 1;
bad:
    fprintf(err, "%s: bad value for --%s: %s\n", tool, names[k], arg);
    return -1;
}

/* ---- GDB target: the node's core through its debug port and the model's backdoor ---------- */

static int g_reg_read(void *ctx, unsigned n, uint32_t *v)
{
    nodedbg_t *d = ctx;
    if (n == 32) {
        *v = d->pc_set ? d->pc : d->gp->dbg_pc;
        return 0;
    }
    return nic_model_dbg_reg(node_nic(d->gn), n, v, 0);
}

static int g_reg_write(void *ctx, unsigned n, uint32_t v)
{
    nodedbg_t *d = ctx;
    if (n == 32) {
        d->pc_set = true;
        d->pc = v;
        return 0;
    }
    return nic_model_dbg_reg(node_nic(d->gn), n, &v, 1);
}

/* The register blocks (nic_regs.h): a read in the MMIO window is one of these 4 KiB blocks or an
 * error, as for the core (an access fault) */
static bool mmio_block(uint32_t off)
{
    static const uint32_t blocks[] = { NIC_HOSTIF_OFFSET, NIC_INTC_OFFSET,    NIC_TIMER_OFFSET,
                                       NIC_DMA_OFFSET,    NIC_MAC_OFFSET,     NIC_PERF_OFFSET,
                                       NIC_CONSOLE_OFFSET, NIC_TESTMB_OFFSET, NIC_DOORBELL_OFFSET };
    for (unsigned i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (off >> 12 == blocks[i] >> 12)
            return true;
    return false;
}

/* MMIO registers: what a read would return now, read in a forked copy of the simulator
 * (node_mmio_peek), so that its side effects never reach the run; at most 64 words a request */
static int mmio_read(nodedbg_t *d, uint32_t addr, uint8_t *buf, uint32_t len)
{
    uint32_t off = addr - NIC_MMIO_BASE, first = off & ~3u, words = (off + len - first + 3u) / 4u;
    uint32_t w[64];

    if (len == 0 || words > 64 || off + len > 0x10000u)
        return -1;
    for (uint32_t a = first; a < off + len; a += 4)
        if (!mmio_block(a))
            return -1;
    if (node_mmio_peek(d->gn, first, w, words))
        return -1;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t b = off + i - first;
        buf[i] = (uint8_t)(w[b / 4] >> (8 * (b % 4)));
    }
    return 0;
}

static int g_mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len)
{
    nodedbg_t *d = ctx;
    if (addr >= NIC_MMIO_BASE && addr - NIC_MMIO_BASE < 0x10000u)
        return mmio_read(d, addr, buf, len);
    return nic_model_dbg_mem(node_nic(d->gn), addr, buf, len, 0);
}

static int g_mem_write(void *ctx, uint32_t addr, const uint8_t *buf, uint32_t len)
{
    nodedbg_t *d = ctx;
    return nic_model_dbg_mem(node_nic(d->gn), addr, (uint8_t *)(uintptr_t)buf, len, 1);
}

static void g_hw_bp(void *ctx, unsigned i, uint32_t addr, int on)
{
    nodedbg_t *d = ctx;
    d->gp->dbg_bp_addr[i] = addr;
    d->gp->dbg_bp_en = (uint8_t)(on ? d->gp->dbg_bp_en | 1u << i : d->gp->dbg_bp_en & ~(1u << i));
}

static void g_halt_req(void *ctx, int on)
{
    nodedbg_t *d = ctx;
    d->want_halt = on;
    if (d->booted)
        d->gp->dbg_halt_req = (uint8_t)on;
}

/* The host loads the firmware with the core held in reset and then releases it: GDB's first halt
 * is at the first instruction after that release (held through it, so none executes), not at
 * whatever the core ran before the load. */
static void track_boot(nodedbg_t *d)
{
    bool r = nic_model_core_in_reset(node_nic(d->gn));
    if (r)
        d->seen_reset = true;
    else if (d->seen_reset)
        d->booted = true;
    d->gp->dbg_halt_req = (uint8_t)(d->want_halt && (r || d->booted));
}

static void g_resume(void *ctx, uint32_t pc, int step)
{
    nodedbg_t *d = ctx;
    d->gp->dbg_resume = 1;
    d->gp->dbg_step = (uint8_t)step;
    d->gp->dbg_resume_pc = pc;
    d->pc_set = false;
}

static int g_halted(void *ctx)
{
    nodedbg_t *d = ctx;
    return d->gp->dbg_halted && !d->gp->dbg_resume;
}

/* cluster hook: every loop iteration */
static int hook(cluster_t *c, void *ctx)
{
    nodedbg_t *d = ctx;
    (void)c;
    if (!d->booted)
        track_boot(d);
    switch (gdbstub_poll(d->gdb)) {
    case GDBSTUB_BUSY:
        return 1;
    case GDBSTUB_KILL:
        /* The run stops as on SIGINT/SIGTERM (the tools' stop predicates read report_signal):
         * the core stays halted, the reports opened before the run are written, marked partial
         * with "signal": "SIGKILL", and the exit status is 128 + 9. */
        if (!report_signal) {
            fprintf(stderr, "%s: killed by gdb (or the connection to it was lost): the run stops, its reports marked partial\n",
                    d->tool);
            report_signal = SIGKILL;
        }
        return 0;
    default:
        return 0;
    }
}

/* ---- instruction trace ------------------------------------------------------------------- */

static void trace_step(nodedbg_t *d, const struct nic_core_probe *pp, sim_cycle_t now)
{
    const struct nic_core_probe p = *pp;

    /* a data request accepted at this edge belongs to the next load/store to retire */
    if (p.dbus_fire && d->mq_n < MEMQ) {
        d->mq[(d->mq_head + d->mq_n) % MEMQ] =
            (struct memreq){ .addr = p.dbus_addr, .wdata = p.dbus_wdata, .we = p.dbus_we, .be = p.dbus_be };
        d->mq_n++;
    }
    if (!p.retire_valid)
        return;
    bool mem = rvdis_is_load(p.retire_insn) || rvdis_is_store(p.retire_insn);
    struct memreq r = { 0 };
    bool has_req = false;
    /* a load/store that trapped before its request (misaligned) has none: the queue is empty then */
    if (mem && d->mq_n) {
        r = d->mq[d->mq_head];
        d->mq_head = (d->mq_head + 1) % MEMQ;
        d->mq_n--;
        has_req = true;
    }
    if (now < d->from || now >= d->to)
        return;

    char dis[64], where[80], eff[96] = "";
    uint32_t off = 0;
    const char *fn = rvsyms_lookup(d->syms, p.retire_pc, &off);
    rvdis(p.retire_insn, p.retire_pc, dis, sizeof dis);
    if (fn)
        snprintf(where, sizeof where, "%s+0x%" PRIx32, fn, off);
    else
        snprintf(where, sizeof where, "?");
    if (p.retire_trap) {
        snprintf(eff, sizeof eff, "trap");
    } else {
        int k = 0;
        if (p.retire_rd_we && p.retire_rd)
            k = snprintf(eff, sizeof eff, "%s=0x%08" PRIx32 "%s", rvdis_reg[p.retire_rd], p.retire_rd_wdata,
                         has_req ? " " : "");
        if (has_req && r.we)
            snprintf(eff + k, sizeof eff - (size_t)k, "PA:0x%08" PRIx32 " store:0x%08" PRIx32 " be:%x", r.addr, r.wdata,
                     r.be);
        else if (has_req)
            snprintf(eff + k, sizeof eff - (size_t)k, "PA:0x%08" PRIx32 " load:0x%08" PRIx32, r.addr,
                     p.retire_rd_wdata);
    }
    if (fprintf(d->tf, "%12" PRIu64 " %08" PRIx32 " %08" PRIx32 " %-32s %-*s%s%s\n", (uint64_t)now, p.retire_pc,
                p.retire_insn, where, eff[0] ? 32 : 0, dis, eff[0] ? " " : "", eff) < 0)
        d->tf_err = true;
    d->lines++;
}

/* The node probe (every clocked cycle of the trace node and, while GDB has watchpoints, of the
 * GDB node): the trace's retired instructions, the watchpoints' data requests. */
static void probe(void *ctx, node_t *n, sim_cycle_t now)
{
    nodedbg_t *d = ctx;
    struct nic_core_probe p;

    nic_model_probe(node_nic(n), &p);
    if (d->watching && n == d->gn && p.dbus_fire)
        gdbstub_access(d->gdb, p.dbus_addr, p.dbus_be, p.dbus_we);
    if (d->tf && n == d->tn)
        trace_step(d, &p, now);
}

static void g_watch(void *ctx, int on)
{
    nodedbg_t *d = ctx;
    d->watching = on;
    if (on)
        node_set_probe(d->gn, probe, d);
    else if (!(d->tf && d->gn == d->tn)) /* idle cycles may be skipped again */
        node_set_probe(d->gn, NULL, NULL);
}

/* X.img -> X.elf */
static void elf_of(const char *img, char *buf, size_t n)
{
    size_t l = strlen(img);
    snprintf(buf, n, "%.*s.elf", (int)(l > 4 && !strcmp(img + l - 4, ".img") ? l - 4 : l), img);
}

nodedbg_t *nodedbg_attach(const struct nodedbg_opts *o, cluster_t *c, unsigned trace_node, const char *image,
                          const char *tool, FILE *err)
{
    nodedbg_t *d = calloc(1, sizeof *d);
    char elf[4096];

    if (!d)
        return NULL;
    d->cl = c;
    d->tool = tool;
    if (trace_node >= cluster_nodes(c) && (o->trace_path || o->fst_scopes || o->fst_start || o->fst_stop != UINT64_MAX)) {
        fprintf(err, "%s: --trace-node %u but only %u nodes\n", tool, trace_node, cluster_nodes(c));
        goto fail;
    }
    if (o->fst_scopes || o->fst_start || o->fst_stop != UINT64_MAX) {
        if (o->fst_stop <= o->fst_start) {
            fprintf(err, "%s: --fst-stop must be after --fst-start\n", tool);
            goto fail;
        }
        nic_model_trace_config(node_nic(cluster_node(c, trace_node)), o->fst_start, o->fst_stop, o->fst_scope,
                               o->fst_scopes);
    }
    if (o->trace_path) {
        if (o->trace_to <= o->trace_from) {
            fprintf(err, "%s: --trace-to must be after --trace-from\n", tool);
            goto fail;
        }
        elf_of(image, elf, sizeof elf);
        d->syms = rvsyms_load(elf);
        if (!d->syms)
            fprintf(err, "%s: --trace-insn: no symbols (%s is not a readable RV32 ELF): functions show as ?\n", tool,
                    elf);
        d->tf = fopen(o->trace_path, "w");
        if (!d->tf) {
            fprintf(err, "%s: --trace-insn %s: %s\n", tool, o->trace_path, strerror(errno));
            goto fail;
        }
        d->from = o->trace_from;
        d->to = o->trace_to;
        fprintf(d->tf, "# node %u instruction trace (%s), cycles [%" PRIu64 ", %" PRIu64 ")\n"
                       "# %10s %-8s %-8s %-32s %-32s %s\n",
                trace_node, image, o->trace_from, o->trace_to, "cycle", "pc", "insn", "function+offset", "disassembly",
                "register written, memory access");
        d->tn = cluster_node(c, trace_node);
        node_set_probe(d->tn, probe, d);
    }
    if (o->gdb_port >= 0) {
        if (o->gdb_node >= cluster_nodes(c)) {
            fprintf(err, "%s: --gdb-node %u but only %u nodes\n", tool, o->gdb_node, cluster_nodes(c));
            goto fail;
        }
        struct gdb_target t = {
            .ctx = d, .reg_read = g_reg_read, .reg_write = g_reg_write, .mem_read = g_mem_read,
            .mem_write = g_mem_write, .hw_bp = g_hw_bp, .hw_bps = NIC_MODEL_DBG_BPS,
            .halt_req = g_halt_req, .resume = g_resume, .halted = g_halted, .watch = g_watch,
        };
        d->gn = cluster_node(c, o->gdb_node);
        d->gp = node_pins(d->gn);
        d->gp->dbg_ebreak = 1; /* GDB's software breakpoints: ebreak halts instead of trapping */
        d->gdb = gdbstub_open(o->gdb_port, &t, tool, err);
        if (!d->gdb) {
            fprintf(err, "%s: --gdb %d: %s\n", tool, o->gdb_port, strerror(errno));
            goto fail;
        }
        cluster_set_hook(c, hook, d);
    }
    return d;
fail:
    if (d->tf)
        fclose(d->tf);
    rvsyms_free(d->syms);
    free(d);
    return NULL;
}

int nodedbg_finish(nodedbg_t *d, int status)
{
    int rc = 0;

    if (!d)
        return 0;
    if (d->gdb) {
        cluster_set_hook(d->cl, NULL, NULL);
        gdbstub_close(d->gdb, status);
    }
    if (d->tn)
        node_set_probe(d->tn, NULL, NULL);
    if (d->gn)
        node_set_probe(d->gn, NULL, NULL);
    if (d->tf && (fclose(d->tf) || d->tf_err))
        rc = -1;
    rvsyms_free(d->syms);
    free(d);
    return rc;
}
