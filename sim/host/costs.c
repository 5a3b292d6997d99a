/*
 * costs.c - host software cost model and miss-penalty recorder (see costs.h).
 *
 * Role map:
 *   key table          one row per settable key: name, kind, field offset
 *   parse_ns           "<number>[ns|us|ms|s]" -> ns, integer arithmetic only (no locale)
 *   costs_set          parse into a copy, validate, commit
 *   draw               fixed / uniform / log-uniform draws from the model's generator
 *   recorder           bounded sample arrays with reservoir sampling; nearest-rank percentiles
 */
#include "costs.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_rng.h"

struct costs {
    struct costs_params p;
    uint64_t hz;
    sim_rng_t rng;     /* cost draws */
    sim_rng_t rec_rng; /* reservoir sampling, kept apart so recording does not shift draws */
    char err[160];
    uint64_t count;
    uint32_t kept;
    sim_cycle_t delay[COSTS_REC_MAX];
    sim_cycle_t proc[COSTS_REC_MAX];
    sim_cycle_t fill[COSTS_REC_MAX]; /* the part of proc in the FILL command (costs_record_miss_fill) */
};

enum key_kind { KEY_NS, KEY_DIST };

struct key {
    const char *name;
    enum key_kind kind;
    size_t off;
};

#define NS_KEY(name, field)                                \
    {                                                      \
        name, KEY_NS, offsetof(struct costs_params, field) \
    }
static const struct key keys[] = {
    NS_KEY("irq_ns", irq_ns),
    NS_KEY("wake_min_ns", wake.min_ns),
    NS_KEY("wake_max_ns", wake.max_ns),
    { "wake_dist", KEY_DIST, offsetof(struct costs_params, wake.dist) },
    NS_KEY("miss_proc_min_ns", miss_proc.min_ns),
    NS_KEY("miss_proc_max_ns", miss_proc.max_ns),
    { "miss_proc_dist", KEY_DIST, offsetof(struct costs_params, miss_proc.dist) },
    NS_KEY("pin_fixed_ns", pin_fixed_ns),
    NS_KEY("pin_page_ns", pin_page_ns),
    NS_KEY("unpin_fixed_ns", unpin_fixed_ns),
    NS_KEY("unpin_page_ns", unpin_page_ns),
    NS_KEY("mmio_write_ns", mmio_write_ns),
    NS_KEY("mmio_read_ns", mmio_read_ns),
    NS_KEY("syscall_ns", syscall_ns),
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const dist_names[] = { "fixed", "uniform", "loguniform" };

void costs_params_default(struct costs_params *p)
{
    memset(p, 0, sizeof *p);
    p->irq_ns = 500;
    p->wake = (struct costs_range){ 0, 50000, COSTS_UNIFORM };             /* seed 000 */
    p->miss_proc = (struct costs_range){ 5000, 500000, COSTS_LOGUNIFORM }; /* seed 000 */
    p->pin_fixed_ns = 1300;                                                /* seed 004 */
    p->pin_page_ns = 150;                                                  /* seed 004 */
    p->mmio_write_ns = 50;
    p->syscall_ns = 300;
}

costs_t *costs_create(uint64_t clock_hz, uint64_t seed)
{
    costs_t *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    costs_params_default(&c->p);
    c->hz = clock_hz ? clock_hz : SIM_CLOCK_DEFAULT_HZ;
    sim_rng_seed(&c->rng, seed, 0x636f737473ull);
    sim_rng_seed(&c->rec_rng, seed, 0x7265636f7264ull);
    return c;
}

void costs_destroy(costs_t *c)
{
    free(c);
}

const char *costs_error(const costs_t *c)
{
    return c->err;
}

const struct costs_params *costs_params(const costs_t *c)
{
    return &c->p;
}

uint64_t costs_clock_hz(const costs_t *c)
{
    return c->hz;
}

/* "<digits>[.<digits>][unit]" -> ns. Returns false on syntax error or overflow. */
static bool parse_ns(const char *s, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t mult;
    } units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
    uint64_t whole = 0, frac = 0, frac_div = 1;
    const char *p = s;
    int digits = 0;

    while (*p >= '0' && *p <= '9') {
        if (whole > (UINT64_MAX - 9) / 10)
            return false;
        whole = whole * 10 + (uint64_t)(*p++ - '0');
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (frac_div < 1000000000ull) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_div *= 10;
            }
            p++;
            digits++;
        }
    }
    if (digits == 0)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        uint64_t m = units[i].mult;
        if (strcmp(p, units[i].suffix) != 0)
            continue;
        if (whole > UINT64_MAX / m)
            return false;
        /* Fractions below 1 ns are dropped. */
        *out = whole * m + frac * m / frac_div;
        return true;
    }
    return false;
}

int costs_set(costs_t *c, const char *kv)
{
    struct costs_params np;
    const char *eq;
    size_t klen;
    const struct key *k = NULL;

    if (!kv || !(eq = strchr(kv, '='))) {
        snprintf(c->err, sizeof c->err, "expected key=value, got '%s'", kv ? kv : "(null)");
        return SIM_EINVAL;
    }
    klen = (size_t)(eq - kv);
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == klen && strncmp(keys[i].name, kv, klen) == 0)
            k = &keys[i];
    if (!k) {
        snprintf(c->err, sizeof c->err, "unknown host cost key '%.*s'", (int)klen, kv);
        return SIM_EINVAL;
    }
    np = c->p;
    if (k->kind == KEY_NS) {
        uint64_t ns;
        if (!parse_ns(eq + 1, &ns)) {
            snprintf(c->err, sizeof c->err, "%s: bad duration '%s' (number with optional ns/us/ms/s)", k->name, eq + 1);
            return SIM_EINVAL;
        }
        memcpy((char *)&np + k->off, &ns, sizeof ns);
    } else {
        enum costs_dist d = COSTS_FIXED;
        bool found = false;
        for (int i = 0; i < 3; i++)
            if (strcmp(eq + 1, dist_names[i]) == 0) {
                d = (enum costs_dist)i;
                found = true;
            }
        if (!found) {
            snprintf(c->err, sizeof c->err, "%s: bad distribution '%s' (fixed, uniform, loguniform)", k->name, eq + 1);
            return SIM_EINVAL;
        }
        memcpy((char *)&np + k->off, &d, sizeof d);
    }
    if (np.wake.min_ns > np.wake.max_ns || np.miss_proc.min_ns > np.miss_proc.max_ns) {
        snprintf(c->err, sizeof c->err, "%s: range minimum above maximum", k->name);
        return SIM_EINVAL;
    }
    c->p = np;
    c->err[0] = '\0';
    return SIM_OK;
}

int costs_set_list(costs_t *c, const char *list)
{
    char item[128];
    const char *p = list;

    if (!list)
        return SIM_EINVAL;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        int err;

        if (n >= sizeof item) {
            snprintf(c->err, sizeof c->err, "host cost item too long");
            return SIM_EINVAL;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        if (n) {
            err = costs_set(c, item);
            if (err)
                return err;
        }
        p += n + (comma ? 1 : 0);
    }
    return SIM_OK;
}

int costs_format(const costs_t *c, char *buf, size_t n)
{
    int total = 0;

    for (size_t i = 0; i < NKEYS; i++) {
        const char *base = (const char *)&c->p + keys[i].off;
        size_t room = (size_t)total < n ? n - (size_t)total : 0;
        int w;

        if (keys[i].kind == KEY_NS) {
            uint64_t v;
            memcpy(&v, base, sizeof v);
            w = snprintf(room ? buf + total : NULL, room, "%s=%" PRIu64 "\n", keys[i].name, v);
        } else {
            enum costs_dist d;
            memcpy(&d, base, sizeof d);
            w = snprintf(room ? buf + total : NULL, room, "%s=%s\n", keys[i].name, dist_names[d]);
        }
        if (w < 0)
            return w;
        total += w;
    }
    return total;
}

static sim_cycle_t cyc(const costs_t *c, uint64_t ns)
{
    return sim_ns_to_cycles(c->hz, ns);
}

static sim_cycle_t draw(costs_t *c, const struct costs_range *r)
{
    uint64_t ns;

    switch (r->dist) {
    case COSTS_UNIFORM:
        ns = sim_rng_range(&c->rng, r->min_ns, r->max_ns);
        break;
    case COSTS_LOGUNIFORM: {
        double lo = log((double)(r->min_ns ? r->min_ns : 1)), hi = log((double)(r->max_ns ? r->max_ns : 1));
        ns = (uint64_t)exp(lo + (hi - lo) * sim_rng_unit(&c->rng));
        if (ns < r->min_ns)
            ns = r->min_ns;
        if (ns > r->max_ns)
            ns = r->max_ns;
        break;
    }
    case COSTS_FIXED:
    default:
        ns = r->min_ns;
        break;
    }
    return cyc(c, ns);
}

sim_cycle_t costs_irq(const costs_t *c)
{
    return cyc(c, c->p.irq_ns);
}

sim_cycle_t costs_draw_wake(costs_t *c)
{
    return draw(c, &c->p.wake);
}

sim_cycle_t costs_draw_miss_proc(costs_t *c)
{
    return draw(c, &c->p.miss_proc);
}

static sim_cycle_t fixed_plus_pages(const costs_t *c, uint64_t fixed, uint64_t per, uint64_t pages)
{
    uint64_t ns;

    if (pages == 0)
        return 0;
    ns = (per && pages > (UINT64_MAX - fixed) / per) ? UINT64_MAX : fixed + per * pages;
    return cyc(c, ns);
}

sim_cycle_t costs_pin(const costs_t *c, uint64_t pages)
{
    return fixed_plus_pages(c, c->p.pin_fixed_ns, c->p.pin_page_ns, pages);
}

sim_cycle_t costs_unpin(const costs_t *c, uint64_t pages)
{
    return fixed_plus_pages(c, c->p.unpin_fixed_ns, c->p.unpin_page_ns, pages);
}

sim_cycle_t costs_mmio_write(const costs_t *c)
{
    return cyc(c, c->p.mmio_write_ns);
}

sim_cycle_t costs_mmio_read(const costs_t *c)
{
    return cyc(c, c->p.mmio_read_ns);
}

sim_cycle_t costs_syscall(const costs_t *c)
{
    return cyc(c, c->p.syscall_ns);
}

void costs_record_miss(costs_t *c, sim_cycle_t delay, sim_cycle_t proc)
{
    costs_record_miss_fill(c, delay, proc, 0);
}

void costs_record_miss_fill(costs_t *c, sim_cycle_t delay, sim_cycle_t proc, sim_cycle_t fill)
{
    uint64_t slot;

    if (c->count < UINT64_MAX)
        c->count++;
    if (c->kept < COSTS_REC_MAX) {
        slot = c->kept++;
    } else {
        /* Reservoir sampling (algorithm R): keep each of the count samples with equal chance. */
        slot = sim_rng_below(&c->rec_rng, c->count);
        if (slot >= COSTS_REC_MAX)
            return;
    }
    c->delay[slot] = delay;
    c->proc[slot] = proc;
    c->fill[slot] = fill < proc ? fill : proc;
}

uint32_t costs_samples(const costs_t *c, uint64_t *count, const sim_cycle_t **delay, const sim_cycle_t **proc)
{
    *count = c->count;
    *delay = c->delay;
    *proc = c->proc;
    return c->kept;
}

const sim_cycle_t *costs_fill_samples(const costs_t *c)
{
    return c->fill;
}

void costs_import(costs_t *c, uint64_t count, uint32_t kept, const void *delay, const void *proc, const void *fill)
{
    for (uint32_t i = 0; i < kept; i++) {
        sim_cycle_t d, p, f = 0;
        memcpy(&d, (const uint8_t *)delay + i * sizeof d, sizeof d);
        memcpy(&p, (const uint8_t *)proc + i * sizeof p, sizeof p);
        if (fill)
            memcpy(&f, (const uint8_t *)fill + i * sizeof f, sizeof f);
        costs_record_miss_fill(c, d, p, f);
    }
    if (count > kept)
        c->count = c->count > UINT64_MAX - (count - kept) ? UINT64_MAX : c->count + (count - kept);
}

void costs_reset_samples(costs_t *c)
{
    c->count = 0;
    c->kept = 0;
}

static int cmp_cycle(const void *a, const void *b)
{
    sim_cycle_t x = *(const sim_cycle_t *)a, y = *(const sim_cycle_t *)b;

    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array of n > 0. */
static sim_cycle_t pct(const sim_cycle_t *s, uint32_t n, unsigned p)
{
    uint64_t rank = ((uint64_t)p * n + 99) / 100;

    return s[rank ? rank - 1 : 0];
}

void costs_stats(const costs_t *c, struct costs_stats *out)
{
    uint32_t n = c->kept;
    sim_cycle_t *tmp;

    memset(out, 0, sizeof *out);
    out->count = c->count;
    out->kept = n;
    if (n == 0)
        return;
    tmp = malloc(sizeof *tmp * n);
    if (!tmp)
        return;
    memcpy(tmp, c->delay, sizeof *tmp * n);
    qsort(tmp, n, sizeof *tmp, cmp_cycle);
    out->delay_p50 = pct(tmp, n, 50);
    out->delay_p99 = pct(tmp, n, 99);
    out->delay_max = tmp[n - 1];
    memcpy(tmp, c->proc, sizeof *tmp * n);
    qsort(tmp, n, sizeof *tmp, cmp_cycle);
    out->proc_p50 = pct(tmp, n, 50);
    out->proc_p99 = pct(tmp, n, 99);
    out->proc_max = tmp[n - 1];
    memcpy(tmp, c->fill, sizeof *tmp * n);
    qsort(tmp, n, sizeof *tmp, cmp_cycle);
    out->fill_p50 = pct(tmp, n, 50);
    out->fill_p99 = pct(tmp, n, 99);
    out->fill_max = tmp[n - 1];
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = c->proc[i] - c->fill[i]; /* fill <= proc (costs_record_miss_fill) */
    qsort(tmp, n, sizeof *tmp, cmp_cycle);
    out->nofill_p50 = pct(tmp, n, 50);
    out->nofill_p99 = pct(tmp, n, 99);
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = sim_cycle_add(c->delay[i], c->proc[i]);
    qsort(tmp, n, sizeof *tmp, cmp_cycle);
    out->total_p50 = pct(tmp, n, 50);
    out->total_p99 = pct(tmp, n, 99);
    out->total_max = tmp[n - 1];
    free(tmp);
}
