/*
 * costs.h - the host software cost model and the miss-penalty recorder.
 *
 * Role map: what host software costs in simulated time. The driver stub and the harness ask it
 * how long to charge (coro_sleep) for interrupt delivery, the miss thread's wake-up, the base
 * processing of a miss, pinning and unpinning pages, MMIO accesses and system calls. Figures are
 * kept in ns (as the seeds give them) and converted to cycles at the configured clock. Random
 * costs (wake-up delay, miss processing) are drawn from the model's own seeded generator.
 *
 * Defaults and their sources (docs/models.md has the table):
 *   miss delay  = irq_ns + wake draw, wake uniform 0-50 us        (seed 000: miss delay 0-50 us)
 *   miss processing base, log-uniform 5-500 us                     (seed 000: processing 5-500 us)
 *   pin = pin_fixed_ns + pin_page_ns * pages = 1300 + 150 * pages  (seed 004, Table 1, Xeon E5460;
 *         the table's range over CPUs is 1.3-4.2 us + 150-720 ns per page, pin+unpin together,
 *         so unpin defaults to 0)
 *   irq_ns 500, mmio_write_ns 50, mmio_read_ns 0 (the PCIe model charges the round trip),
 *   syscall_ns 300: typical figures, not from the seeds.
 *
 * Settable from "key=value" strings (the CLI's --host-cost): keys are the struct costs_params
 * field names below; values are non-negative numbers with an optional unit ns (default), us, ms
 * or s, decimals allowed ("1.3us"); *_dist keys take fixed, uniform or loguniform.
 *
 * The recorder keeps miss-penalty samples split into delay (miss raised -> miss thread runs) and
 * processing (miss thread runs -> fill installed), and of the processing the part spent in the
 * FILL command (the fill: the driver writing the line image and the command, the NCP's DMA of
 * the image and its answer);
 * up to COSTS_REC_MAX samples are kept, beyond that a seeded reservoir sample, so percentiles
 * stay bounded in memory.
 *
 * Contract: single-threaded; create/destroy; costs_set is all-or-nothing (an error leaves the
 * parameters unchanged).
 */
#ifndef COSTS_H
#define COSTS_H

#include <stddef.h>
#include <stdint.h>

#include "sim_err.h"
#include "sim_time.h"

#define COSTS_REC_MAX 65536

enum costs_dist {
    COSTS_FIXED = 0,      /* always min */
    COSTS_UNIFORM = 1,    /* uniform in [min, max] */
    COSTS_LOGUNIFORM = 2, /* log-uniform in [max(min,1), max]: most draws near the low end */
};

struct costs_range {
    uint64_t min_ns, max_ns;
    enum costs_dist dist;
};

struct costs_params {
    uint64_t irq_ns;                        /* interrupt raised -> driver top half runs */
    struct costs_range wake;                /* top half -> miss thread scheduled (wake_min_ns, ...) */
    struct costs_range miss_proc;           /* miss thread's base work per miss, pinning excluded */
    uint64_t pin_fixed_ns, pin_page_ns;     /* per pin call + per page */
    uint64_t unpin_fixed_ns, unpin_page_ns; /* per unpin call + per page */
    uint64_t mmio_write_ns;                 /* CPU time to issue one posted MMIO write */
    uint64_t mmio_read_ns;                  /* CPU time per MMIO read on top of the PCIe round trip */
    uint64_t syscall_ns;                    /* user -> kernel -> user crossing */
};

struct costs_stats {
    uint64_t count; /* samples recorded (all, not only those kept) */
    uint64_t kept;  /* samples the percentiles are computed over */
    sim_cycle_t delay_p50, delay_p99, delay_max;
    sim_cycle_t proc_p50, proc_p99, proc_max;
    sim_cycle_t fill_p50, fill_p99, fill_max; /* the fill's part of each processing sample */
    sim_cycle_t nofill_p50, nofill_p99;       /* processing less its fill, per sample */
    sim_cycle_t total_p50, total_p99, total_max;
};

typedef struct costs costs_t;

void costs_params_default(struct costs_params *p);

/* clock_hz 0 = SIM_CLOCK_DEFAULT_HZ. NULL on allocation failure. */
costs_t *costs_create(uint64_t clock_hz, uint64_t seed);
void costs_destroy(costs_t *c); /* NULL is fine */

/* "key=value": SIM_OK or SIM_EINVAL (unknown key, bad number or unit, bad dist, a range with
 * min > max); costs_error() then says why. */
int costs_set(costs_t *c, const char *kv);
/* Comma-separated "k=v,k=v": applied left to right, stops at the first error. */
int costs_set_list(costs_t *c, const char *list);
const char *costs_error(const costs_t *c);
const struct costs_params *costs_params(const costs_t *c);
/* All parameters as "key=value" lines (for run logs); returns the snprintf-style length. */
int costs_format(const costs_t *c, char *buf, size_t n);
uint64_t costs_clock_hz(const costs_t *c);

/* ---- charges, in cycles ---- */
sim_cycle_t costs_irq(const costs_t *c);
sim_cycle_t costs_draw_wake(costs_t *c);
sim_cycle_t costs_draw_miss_proc(costs_t *c);
sim_cycle_t costs_pin(const costs_t *c, uint64_t pages);   /* 0 pages costs 0 */
sim_cycle_t costs_unpin(const costs_t *c, uint64_t pages); /* 0 pages costs 0 */
sim_cycle_t costs_mmio_write(const costs_t *c);
sim_cycle_t costs_mmio_read(const costs_t *c);
sim_cycle_t costs_syscall(const costs_t *c);

/* ---- miss-penalty recorder ---- */
void costs_record_miss(costs_t *c, sim_cycle_t delay, sim_cycle_t proc); /* fill 0 */
/* fill: the part of proc in the FILL command (clamped to proc). */
void costs_record_miss_fill(costs_t *c, sim_cycle_t delay, sim_cycle_t proc, sim_cycle_t fill);
void costs_stats(const costs_t *c, struct costs_stats *out); /* zeros when empty */
void costs_reset_samples(costs_t *c);
/* The kept samples (returned count; arrays valid until the next record) and, in *count, all
 * recorded. */
uint32_t costs_samples(const costs_t *c, uint64_t *count, const sim_cycle_t **delay, const sim_cycle_t **proc);
const sim_cycle_t *costs_fill_samples(const costs_t *c); /* the kept samples' fills, as costs_samples */
/* Records another recorder's kept samples (arrays of kept sim_cycle_t, any alignment; fill may be
 * NULL: 0) as if recorded here, and its unkept count: merging per-node recorders in a fixed order. */
void costs_import(costs_t *c, uint64_t count, uint32_t kept, const void *delay, const void *proc, const void *fill);

#endif /* COSTS_H */
