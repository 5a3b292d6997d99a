/* coresim.c - standalone testbench for rv_core: runs an RV32 ELF on the
 * Verilated core with a flat C memory model, the TIMER/INTC devices and the
 * HTIF tohost/fromhost convention.
 *
 * Role map:  options -> memory map (ELF PT_LOAD or --mem) -> load -> cycle loop
 *            (bus ports with wait states / random stalls, devices, HTIF) ->
 *            result line + statistics on stderr, console bytes on stdout.
 * Boot: the model is built with RESET_VECTOR = 0. When the ELF entry is not 0,
 * coresim answers the first fetches of 0x0 and 0x4 with a two-instruction stub
 * `lui t0, %hi(entry); jalr x0, %lo(entry)(t0)` (t0 is clobbered; the stub
 * retires two instructions) until the core fetches the entry point. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core_model.h"
#include "cs_dev.h"
#include "cs_elf.h"
#include "cs_mem.h"
#include "gdbstub.h"
#include "nic_memmap.h"
#include "sim_exec.h"

enum {
    EXIT_PASS = 0,
    EXIT_FAIL = 1,
    EXIT_TIMEOUT = 2,
    EXIT_SETUP = 3,
};

/* HTIF: a low-word store with an odd value ends the run unless the program
 * follows it with a console command in the high word within this window. */
#define HTIF_EXIT_WINDOW 1024u
#define PORT_QLEN 8u
#define CORESIM_RAM_BASE 0x80000000u         /* default RAM (without --mem): QEMU's and Spike's base */
#define CORESIM_RAM_SIZE (16u * 1024u * 1024u)

struct port_rsp {
    uint64_t due;
    uint32_t rdata;
    uint8_t err;
};

struct port {
    unsigned ws;   /* wait states per access */
    int rand;      /* random stalls enabled */
    unsigned busy; /* cycles until ready again */
    uint64_t last_due;
    struct port_rsp q[PORT_QLEN];
    unsigned qh, qn;
    int presented; /* a response is driven this cycle */
};

struct sim {
    struct cs_mem mem;
    struct cs_dev dev;
    struct port ip, dp;
    uint64_t rng;
    uint64_t now;
    uint64_t instret;
    /* boot stub */
    int stub_active;
    uint32_t stub[2];
    uint32_t entry;
    /* HTIF */
    int has_tohost, has_fromhost;
    uint32_t tohost, fromhost;
    int exit_pending;
    uint32_t exit_value;
    uint64_t exit_deadline, exit_cycles, exit_instret;
    int done;
    FILE *trace;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: coresim [options] ELF\n"
               "Runs an RV32IM ELF on the Verilated rv_core until it stores to `tohost`.\n"
               "\n"
               "options:\n"
               "  --max-cycles N       stop after N cycles with TIMEOUT (default: no limit)\n"
               "  --mem BASE:SIZE      memory region (repeatable); when given, only these\n"
               "                       regions exist and every PT_LOAD must fit in them;\n"
               "                       default: each PT_LOAD rounded out to 4 KiB, plus RAM at\n"
               "                       0x80000000, 16 MiB (as QEMU's and Spike's RAM base)\n"
               "  --nic                the NIC's memory map instead of the ELF's: instruction memory\n"
               "                       and SRAM at their nic_memmap.h addresses and sizes\n"
               "  --wait-states N      N extra cycles per access on both ports (default 0)\n"
               "  --rand-stall SEED    random ready stalls and response delays\n"
               "  --trace-insn FILE    one line per retired instruction / trap\n"
               "  --vcd FILE           VCD waveform (runs the traced build coresim-trace)\n"
               "  --signature FILE     dump [begin_signature, end_signature) as hex words\n"
               "  --gdb PORT           wait for GDB on 127.0.0.1:PORT (0: any free port, printed on\n"
               "                       stderr) and start halted at the ELF entry (docs/debugging.md)\n"
               "  --quiet              no statistics on stderr\n"
               "  --help               this text\n"
               "\n"
               "Devices, at their register-map addresses (docs/registers.md): intc, timer, console\n"
               "(characters to stdout), testmb (status: odd v ends the run like HTIF).\n"
               "Segments load at their physical (load) address.\n"
               "HTIF: store odd v to tohost -> end (v==1 PASS, else FAIL code v>>1);\n"
               "      store 0x01010000 to tohost+4 -> putchar(low byte of tohost) on stdout.\n"
               "Result line and statistics go to stderr, prefixed \"coresim: \".\n"
               "\n"
               "exit status: 0 PASS, 1 FAIL, 2 TIMEOUT, 3 usage/ELF/memory error\n");
}

static uint64_t rng_next(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* ---- bus ports ---------------------------------------------------------- */

static int port_ready(struct sim *s, struct port *p)
{
    if (p->busy || p->qn == PORT_QLEN)
        return 0;
    return p->rand ? (rng_next(s) & 3u) != 0 : 1;
}

static void port_drive(struct port *p, uint64_t now, uint8_t *valid, uint32_t *rdata, uint8_t *err)
{
    p->presented = p->qn && p->q[p->qh].due <= now;
    *valid = (uint8_t)p->presented;
    *rdata = p->presented ? p->q[p->qh].rdata : 0;
    *err = p->presented ? p->q[p->qh].err : 0;
}

static void port_end_cycle(struct port *p)
{
    if (p->presented) {
        p->qh = (p->qh + 1) % PORT_QLEN;
        p->qn--;
    }
    if (p->busy)
        p->busy--;
}

static void port_accept(struct sim *s, struct port *p, uint32_t rdata, int err)
{
    uint64_t extra = p->ws;
    uint64_t due;
    struct port_rsp *r;
    if (p->rand && (rng_next(s) & 7u) == 0)
        extra += 1 + rng_next(s) % 4;
    due = s->now + 1 + extra;
    if (due <= p->last_due)
        due = p->last_due + 1;
    p->last_due = due;
    r = &p->q[(p->qh + p->qn) % PORT_QLEN];
    r->due = due;
    r->rdata = rdata;
    r->err = (uint8_t)err;
    p->qn++;
    p->busy = p->ws;
}

/* ---- HTIF --------------------------------------------------------------- */

static void htif_store(struct sim *s, uint32_t word_addr)
{
    uint32_t lo = 0, hi = 0;
    if (!s->has_tohost)
        return;
    if (word_addr == s->tohost) {
        cs_mem_read32(&s->mem, s->tohost, &lo);
        if (lo & 1u) {
            s->exit_pending = 1;
            s->exit_value = lo;
            s->exit_deadline = s->now + HTIF_EXIT_WINDOW;
            s->exit_cycles = s->now + 1;
            s->exit_instret = s->instret;
        } else {
            s->exit_pending = 0;
        }
    } else if (word_addr == s->tohost + 4) {
        cs_mem_read32(&s->mem, s->tohost, &lo);
        cs_mem_read32(&s->mem, s->tohost + 4, &hi);
        if (hi == 0) {
            if (s->exit_pending)
                s->exit_deadline = s->now; /* riscv-tests style: lo then hi = 0 */
            return;
        }
        s->exit_pending = 0;
        if ((hi >> 16) == 0x0101u) { /* device 1 (console), cmd 1 (putchar) */
            putchar((int)(lo & 0xFFu));
            if (s->has_fromhost) {
                cs_mem_write32(&s->mem, s->fromhost, 0x100u | (lo & 0xFFu), 0xF);
                cs_mem_write32(&s->mem, s->fromhost + 4, hi & 0xFFFF0000u, 0xF);
            }
        }
        cs_mem_write32(&s->mem, s->tohost, 0, 0xF);
        cs_mem_write32(&s->mem, s->tohost + 4, 0, 0xF);
    }
}

/* ---- one data / instruction access -------------------------------------- */

static void data_access(struct sim *s, const struct core_pins *p)
{
    uint32_t addr = p->dbus_req_addr & ~3u;
    uint32_t rdata = 0;
    int err = 0;
    if (cs_dev_claims(addr)) {
        if (p->dbus_req_we)
            cs_dev_write(&s->dev, addr, p->dbus_req_wdata, p->dbus_req_be);
        else
            rdata = cs_dev_read(&s->dev, addr);
    } else if (p->dbus_req_we) {
        err = cs_mem_write32(&s->mem, addr, p->dbus_req_wdata, p->dbus_req_be) != 0;
        if (!err)
            htif_store(s, addr);
    } else {
        err = cs_mem_read32(&s->mem, addr, &rdata) != 0;
    }
    port_accept(s, &s->dp, rdata, err);
}

static void fetch_access(struct sim *s, uint32_t addr)
{
    uint32_t rdata = 0;
    int err;
    addr &= ~3u;
    if (s->stub_active && addr == s->entry)
        s->stub_active = 0;
    if (s->stub_active && addr < 8) {
        rdata = s->stub[addr >> 2];
        err = 0;
    } else {
        err = cs_mem_read32(&s->mem, addr, &rdata) != 0;
    }
    port_accept(s, &s->ip, rdata, err);
}

/* ---- GDB target (gdbstub.h): the core's debug port, registers and memory by backdoor ------ */

struct dbg {
    struct sim *s;
    struct core_model *m;
    struct core_pins *p;
    int pc_set; /* GDB wrote the pc while halted */
    uint32_t pc;
    int watching; /* GDB has watchpoints: every data request goes to gdbstub_access */
};

static int dbg_reg_read(void *ctx, unsigned n, uint32_t *v)
{
    struct dbg *d = ctx;
    if (n == 32) {
        *v = d->pc_set ? d->pc : d->p->dbg_pc;
        return 0;
    }
    return core_model_dbg_reg(d->m, n, v, 0);
}

static int dbg_reg_write(void *ctx, unsigned n, uint32_t v)
{
    struct dbg *d = ctx;
    if (n == 32) {
        d->pc_set = 1;
        d->pc = v;
        return 0;
    }
    return core_model_dbg_reg(d->m, n, &v, 1);
}

static int dbg_mem(struct dbg *d, uint32_t addr, uint8_t *buf, uint32_t len, int write)
{
    for (uint32_t i = 0; i < len; i++) {
        uint8_t *b = cs_mem_ptr(&d->s->mem, addr + i, 1);
        if (!b)
            return -1;
        if (write)
            *b = buf[i];
        else
            buf[i] = *b;
    }
    return 0;
}

static int dbg_mem_read(void *ctx, uint32_t addr, uint8_t *buf, uint32_t len)
{
    return dbg_mem(ctx, addr, buf, len, 0);
}

static int dbg_mem_write(void *ctx, uint32_t addr, const uint8_t *buf, uint32_t len)
{
    return dbg_mem(ctx, addr, (uint8_t *)(uintptr_t)buf, len, 1);
}

static void dbg_hw_bp(void *ctx, unsigned i, uint32_t addr, int on)
{
    struct dbg *d = ctx;
    d->p->dbg_bp_addr[i] = addr;
    d->p->dbg_bp_en = (uint8_t)(on ? d->p->dbg_bp_en | 1u << i : d->p->dbg_bp_en & ~(1u << i));
}

static void dbg_halt_req(void *ctx, int on)
{
    ((struct dbg *)ctx)->p->dbg_halt_req = (uint8_t)on;
}

static void dbg_resume(void *ctx, uint32_t pc, int step)
{
    struct dbg *d = ctx;
    d->p->dbg_resume = 1;
    d->p->dbg_step = (uint8_t)step;
    d->p->dbg_resume_pc = pc;
    d->pc_set = 0;
}

static int dbg_halted(void *ctx)
{
    struct dbg *d = ctx;
    return d->p->dbg_halted && !d->p->dbg_resume;
}

static void dbg_watch(void *ctx, int on)
{
    struct dbg *d = ctx;
    d->watching = on;
}

/* ---- setup helpers ------------------------------------------------------ */

static int parse_u64(const char *str, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(str, &end, 0);
    return errno == 0 && end != str && *end == '\0' ? 0 : -1;
}

static int write_signature(struct sim *s, const struct cs_elf *e, const char *path)
{
    uint32_t b, en;
    FILE *f;
    if (cs_elf_symbol(e, "begin_signature", &b) != 0 || cs_elf_symbol(e, "end_signature", &en) != 0) {
        fprintf(stderr, "coresim: no begin_signature/end_signature symbols, %s not written\n", path);
        return -1;
    }
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "coresim: %s: cannot write signature\n", path);
        return -1;
    }
    for (uint32_t a = b & ~3u; a < en; a += 4) {
        uint32_t w = 0;
        cs_mem_read32(&s->mem, a, &w);
        fprintf(f, "%08" PRIx32 "\n", w);
    }
    fclose(f);
    return 0;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "max-cycles", required_argument, 0, 'c' },
        { "mem", required_argument, 0, 'm' },
        { "nic", no_argument, 0, 'n' },
        { "wait-states", required_argument, 0, 'w' },
        { "rand-stall", required_argument, 0, 'r' },
        { "trace-insn", required_argument, 0, 't' },
        { "vcd", required_argument, 0, 'v' },
        { "fst", required_argument, 0, 'f' },
        { "signature", required_argument, 0, 's' },
        { "quiet", no_argument, 0, 'q' },
        { "gdb", required_argument, 0, 'g' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    static struct sim s;
    struct cs_mem user_mem;
    struct cs_elf elf;
    struct core_model *m;
    struct core_pins p;
    uint64_t max_cycles = 0, v;
    const char *trace_path = NULL, *vcd_path = NULL, *sig_path = NULL, *path;
    int quiet = 0, rc = EXIT_SETUP, opt, gdb_port = -1;
    gdbstub_t *gdb = NULL;
    struct dbg dbg = { 0 };
    char err[512];
    struct timespec t0, t1;
    double secs;

    memset(&user_mem, 0, sizeof(user_mem));
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (parse_u64(optarg, &max_cycles))
                goto bad_arg;
            break;
        case 'm': {
            char *colon = strchr(optarg, ':');
            uint64_t base, size;
            if (!colon)
                goto bad_arg;
            *colon = '\0';
            if (parse_u64(optarg, &base) || parse_u64(colon + 1, &size) || size == 0 || base + size > 0x100000000ull ||
                cs_mem_add(&user_mem, base, size) != 0)
                goto bad_arg;
            break;
        }
        case 'n':
            if (cs_mem_add(&user_mem, NIC_IMEM_BASE, NIC_IMEM_SIZE) != 0 ||
                cs_mem_add(&user_mem, NIC_SRAM_BASE, NIC_SRAM_SIZE) != 0)
                goto bad_arg;
            break;
        case 'w':
            if (parse_u64(optarg, &v) || v > 1000)
                goto bad_arg;
            s.ip.ws = s.dp.ws = (unsigned)v;
            break;
        case 'r':
            if (parse_u64(optarg, &v))
                goto bad_arg;
            s.ip.rand = s.dp.rand = 1;
            s.rng = v * 0x9E3779B97F4A7C15ull + 1;
            break;
        case 't':
            trace_path = optarg;
            break;
        case 'v':
            vcd_path = optarg;
            break;
        case 'f':
            fprintf(stderr, "coresim: --fst is not supported, use --vcd\n");
            return EXIT_SETUP;
        case 's':
            sig_path = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'g':
            if (parse_u64(optarg, &v) || v > 65535)
                goto bad_arg;
            gdb_port = (int)v;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return EXIT_SETUP;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_SETUP;
    }
    path = argv[optind];
    if (vcd_path && !core_model_is_traced()) {
        sim_exec_twin("coresim", "coresim-trace", "--vcd", argv); /* returns only on failure */
        return EXIT_SETUP;
    }

    if (cs_elf_open(&elf, path, err, sizeof(err)) != 0) {
        fprintf(stderr, "coresim: %s\n", err);
        return EXIT_SETUP;
    }
    if (user_mem.n) {
        s.mem = user_mem;
    } else if (cs_elf_add_regions(&elf, &s.mem, err, sizeof(err)) != 0) {
        fprintf(stderr, "coresim: %s: %s\n", path, err);
        goto out_elf;
    } else if (cs_mem_add(&s.mem, CORESIM_RAM_BASE, CORESIM_RAM_SIZE) != 0) {
        /* the default RAM: a bare-metal ELF linked at 0x80000000 (QEMU virt/spike, Spike) may put
         * its stack or heap beyond its loadable segments */
        fprintf(stderr, "coresim: %s: too many memory regions\n", path);
        goto out_mem;
    }
    if (cs_mem_alloc(&s.mem) != 0) {
        fprintf(stderr, "coresim: %s: out of memory for the memory map\n", path);
        goto out_mem;
    }
    if (cs_elf_load(&elf, &s.mem, err, sizeof(err)) != 0) {
        fprintf(stderr, "coresim: %s: %s\n", path, err);
        goto out_mem;
    }
    s.has_tohost = cs_elf_symbol(&elf, "tohost", &s.tohost) == 0;
    s.has_fromhost = cs_elf_symbol(&elf, "fromhost", &s.fromhost) == 0;
    if (!s.has_tohost && !user_mem.n)
        fprintf(stderr, "coresim: warning: %s has no `tohost` symbol; only --max-cycles ends the run\n", path);
    s.entry = elf.entry;
    s.stub_active = elf.entry != 0;
    {
        uint32_t hi = (elf.entry + 0x800u) & 0xFFFFF000u;
        uint32_t lo = elf.entry - hi;
        s.stub[0] = hi | (5u << 7) | 0x37u;                     /* lui t0, hi */
        s.stub[1] = ((lo & 0xFFFu) << 20) | (5u << 15) | 0x67u; /* jalr x0, lo(t0) */
    }
    if (trace_path) {
        s.trace = fopen(trace_path, "w");
        if (!s.trace) {
            fprintf(stderr, "coresim: %s: cannot open trace file\n", trace_path);
            goto out_mem;
        }
    }
    m = core_model_open(vcd_path);
    if (!m) {
        fprintf(stderr, "coresim: cannot open model (vcd %s)\n", vcd_path ? vcd_path : "-");
        goto out_trace;
    }
    cs_dev_reset(&s.dev, stdout);

    memset(&p, 0, sizeof(p));
    p.rst = 1;
    for (int i = 0; i < 2; i++) {
        core_model_eval(m, &p);
        core_model_posedge(m);
    }
    p.rst = 0;

    if (gdb_port >= 0) {
        struct gdb_target t = {
            .ctx = &dbg, .reg_read = dbg_reg_read, .reg_write = dbg_reg_write, .mem_read = dbg_mem_read,
            .mem_write = dbg_mem_write, .hw_bp = dbg_hw_bp, .hw_bps = CORE_MODEL_DBG_BPS,
            .halt_req = dbg_halt_req, .resume = dbg_resume, .halted = dbg_halted, .watch = dbg_watch,
        };
        dbg.s = &s;
        dbg.m = m;
        dbg.p = &p;
        p.dbg_ebreak = 1; /* GDB's software breakpoints: ebreak halts instead of trapping */
        gdb = gdbstub_open(gdb_port, &t, "coresim", stderr);
        if (!gdb) {
            fprintf(stderr, "coresim: --gdb %d: %s\n", gdb_port, strerror(errno));
            core_model_close(m);
            goto out_trace;
        }
        /* GDB starts at the ELF's entry, not at the boot stub */
        dbg.pc_set = 1;
        dbg.pc = elf.entry;
        s.stub_active = 0;
    }

    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!s.done) {
        /* a resume pulse lasts the one cycle whose evaluation drives it */
        int resume_driven = p.dbg_resume;
        p.ibus_req_ready = (uint8_t)port_ready(&s, &s.ip);
        p.dbus_req_ready = (uint8_t)port_ready(&s, &s.dp);
        port_drive(&s.ip, s.now, &p.ibus_rsp_valid, &p.ibus_rsp_rdata, &p.ibus_rsp_err);
        port_drive(&s.dp, s.now, &p.dbus_rsp_valid, &p.dbus_rsp_rdata, &p.dbus_rsp_err);
        p.irq_external = (uint8_t)cs_dev_irq_external(&s.dev);
        p.irq_timer = (uint8_t)cs_dev_irq_timer(&s.dev);
        p.irq_software = (uint8_t)cs_dev_irq_software(&s.dev);
        core_model_eval(m, &p);
        /* GDB sees this cycle's outputs (halted, pc); what it drives applies from the next one */
        if (gdb && gdbstub_poll(gdb) == GDBSTUB_KILL) {
            fprintf(stderr, "coresim: killed by gdb\n");
            s.done = 3;
            break;
        }

        if (p.retire_valid) {
            if (!p.retire_trap)
                s.instret++;
            if (s.trace) {
                fprintf(s.trace, "%10" PRIu64 " %08" PRIx32 " %08" PRIx32, s.now, p.retire_pc, p.retire_insn);
                if (p.retire_trap)
                    fputs(" trap", s.trace);
                else if (p.retire_rd_we)
                    fprintf(s.trace, " x%-2u=%08" PRIx32, (unsigned)p.retire_rd, p.retire_rd_wdata);
                fputc('\n', s.trace);
            }
        }
        core_model_posedge(m);
        if (resume_driven)
            p.dbg_resume = 0;

        port_end_cycle(&s.ip);
        port_end_cycle(&s.dp);
        if (p.dbus_req_valid && p.dbus_req_ready) {
            if (dbg.watching)
                gdbstub_access(gdb, p.dbus_req_addr, p.dbus_req_be, p.dbus_req_we);
            data_access(&s, &p);
        }
        if (p.ibus_req_valid && p.ibus_req_ready)
            fetch_access(&s, p.ibus_req_addr);
        cs_dev_tick(&s.dev);
        s.now++;

        if (s.dev.exit_pending && !s.done) {
            s.exit_value = s.dev.testmb_status;
            s.exit_cycles = s.now;
            s.exit_instret = s.instret;
            s.done = 1;
        } else if (s.exit_pending && s.now >= s.exit_deadline) {
            s.done = 1;
        } else if (max_cycles && s.now >= max_cycles) {
            s.done = 2;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    fflush(stdout);

    if (s.done == 1) {
        if (s.exit_value == 1) {
            fprintf(stderr, "coresim: PASS\n");
            rc = EXIT_PASS;
        } else {
            fprintf(stderr, "coresim: FAIL code %" PRIu32 "\n", s.exit_value >> 1);
            rc = EXIT_FAIL;
        }
    } else if (s.done == 3) {
        s.exit_cycles = s.now;
        s.exit_instret = s.instret;
        rc = EXIT_FAIL;
    } else {
        fprintf(stderr, "coresim: TIMEOUT after %" PRIu64 " cycles\n", s.now);
        s.exit_cycles = s.now;
        s.exit_instret = s.instret;
        rc = EXIT_TIMEOUT;
    }
    if (!quiet) {
        fprintf(stderr, "coresim: cycles %" PRIu64 " instret %" PRIu64 " CPI %.3f\n", s.exit_cycles, s.exit_instret,
                s.exit_instret ? (double)s.exit_cycles / (double)s.exit_instret : 0.0);
        fprintf(stderr, "coresim: simulated %" PRIu64 " cycles in %.3f s = %.2f Mcycles/s\n", s.now, secs,
                secs > 0 ? (double)s.now / secs / 1e6 : 0.0);
    }
    if (sig_path && write_signature(&s, &elf, sig_path) != 0 && rc == EXIT_PASS)
        rc = EXIT_SETUP;
    gdbstub_close(gdb, rc);
    core_model_close(m);
out_trace:
    if (s.trace)
        fclose(s.trace);
out_mem:
    cs_mem_free(&s.mem);
out_elf:
    cs_elf_close(&elf);
    return rc;

bad_arg:
    fprintf(stderr, "coresim: bad option argument: %s\n", optarg ? optarg : "");
    usage(stderr);
    return EXIT_SETUP;
}
