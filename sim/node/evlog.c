/*
 * evlog.c - the JSON-lines event log (evlog.h).
 */
#include "evlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV_NODES 256 /* SWITCH_MAX_PORTS */
#define HDR 48u
/* Lines are kept and written in simulated-time order: the switch's tap sees a quantum's frames at
 * its end (deferred), stamped with their own cycles, while the driver's observations come as they
 * happen, so two sources may arrive out of order by up to a quantum. evlog_close sorts (stable)
 * and writes them; beyond EV_KEEP lines the older half is sorted and written early (a run with
 * millions of events: its order then holds unless a late line is older than the half written). */
#define EV_KEEP (4u << 20)
#define EV_LINE 224u

struct conn {
    bool seen;
    bool resync; /* the last sequenced frame carried RESYNC */
    uint32_t max; /* highest sequence number sent (serial-number order) */
};

struct ev_line {
    uint64_t cycle, order;
    char *text;
};

struct evlog {
    FILE *f;
    uint64_t clock_hz;
    uint64_t lines;
    int err;
    struct conn *c; /* [src * EV_NODES + dst] */
    char cur[EV_LINE]; /* the line being built (head, fields, tail) */
    size_t cur_len;
    uint64_t cur_cycle;
    struct ev_line *keep; /* lines not yet written */
    size_t nkeep, capkeep;
};

evlog_t *evlog_open(const char *path, uint64_t clock_hz)
{
    struct evlog *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->c = calloc((size_t)EV_NODES * EV_NODES, sizeof *e->c);
    e->f = e->c ? fopen(path, "w") : NULL;
    if (!e->f) {
        int er = errno;
        free(e->c);
        free(e);
        errno = er;
        return NULL;
    }
    e->clock_hz = clock_hz ? clock_hz : 200000000ull;
    return e;
}

/* Appends to the line being built (a line that would not fit is an error, not a truncation). */
static void put(evlog_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(evlog_t *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->cur + e->cur_len, sizeof e->cur - e->cur_len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof e->cur - e->cur_len)
        e->err = 1;
    else
        e->cur_len += (size_t)n;
}

static void head(evlog_t *e, sim_cycle_t now, unsigned node, const char *ev)
{
    uint64_t c = (uint64_t)now;
    uint64_t ns = c / e->clock_hz * 1000000000ull + c % e->clock_hz * 1000000000ull / e->clock_hz;
    e->cur_len = 0;
    e->cur_cycle = c;
    put(e, "{\"cycle\":%" PRIu64 ",\"ns\":%" PRIu64 ",\"node\":%u,\"event\":\"%s\"", c, ns, node, ev);
    e->lines++;
}

static int by_time(const void *a, const void *b)
{
    const struct ev_line *x = a, *y = b;
    if (x->cycle != y->cycle)
        return x->cycle < y->cycle ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the kept lines and writes the first n of them. */
static void write_kept(evlog_t *e, size_t n)
{
    qsort(e->keep, e->nkeep, sizeof *e->keep, by_time);
    for (size_t i = 0; i < n; i++) {
        if (fputs(e->keep[i].text, e->f) < 0)
            e->err = 1;
        free(e->keep[i].text);
    }
    memmove(e->keep, e->keep + n, (e->nkeep - n) * sizeof *e->keep);
    e->nkeep -= n;
}

static void tail(evlog_t *e)
{
    put(e, "}\n");
    if (e->nkeep == e->capkeep) {
        if (e->nkeep >= EV_KEEP) {
            write_kept(e, e->nkeep / 2);
        } else {
            size_t cap = e->capkeep ? e->capkeep * 2 : 1024;
            struct ev_line *k = realloc(e->keep, cap * sizeof *k);
            if (!k) {
                e->err = 1;
                return;
            }
            e->keep = k;
            e->capkeep = cap;
        }
    }
    char *t = malloc(e->cur_len + 1);
    if (!t) {
        e->err = 1;
        return;
    }
    memcpy(t, e->cur, e->cur_len + 1);
    e->keep[e->nkeep] = (struct ev_line){ .cycle = e->cur_cycle, .order = e->lines, .text = t };
    e->nkeep++;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void evlog_frame(evlog_t *e, sim_cycle_t now, const uint8_t *f, size_t len)
{
    static const char *const reasons[] = { "?", "GAP", "MISS", "PROTECTION", "MALFORMED", "BUSY", "RESUME" };
    unsigned dst, src, type, flags;
    uint32_t seq;

    if (len < HDR)
        return;
    dst = (unsigned)f[0] << 8 | f[1];
    src = (unsigned)f[2] << 8 | f[3];
    type = f[4];
    flags = f[5];
    seq = le32(f + 8);
    if (dst >= EV_NODES || src >= EV_NODES)
        return;
    if (type == 5) { /* NACK */
        unsigned r = (unsigned)f[22] | (unsigned)f[23] << 8;
        head(e, now, src, r == 6 ? "resume" : "nack");
        if (r != 6)
            put(e, ",\"reason\":\"%s\"", r < 6 ? reasons[r] : "?");
        put(e, ",\"peer\":%u,\"seq\":%" PRIu32, dst, seq);
        tail(e);
        return;
    }
    if (type < 1 || type > 3)
        return; /* ACK: not sequenced */
    struct conn *c = &e->c[src * EV_NODES + dst];
    bool resync = flags & 0x01u;
    if (resync && c->seen && !c->resync) {
        head(e, now, src, "giveup");
        put(e, ",\"peer\":%u,\"seq\":%" PRIu32, dst, seq);
        tail(e);
        c->seen = false; /* a new sequence starts here */
    }
    c->resync = resync;
    if (c->seen && (int32_t)(seq - c->max) <= 0) {
        head(e, now, src, "retransmit");
        put(e, ",\"peer\":%u,\"seq\":%" PRIu32 ",\"type\":%u", dst, seq, type);
        tail(e);
        return;
    }
    c->seen = true;
    c->max = seq;
}

void evlog_driver(evlog_t *e, sim_cycle_t now, unsigned node, const char *kind, unsigned cache, uint16_t pid,
                  uint32_t key)
{
    static const char *const caches[] = { "vmh", "cbh", "pch" }; /* enum nic_cache */
    head(e, now, node, kind);
    put(e, ",\"cache\":\"%s\",\"pid\":%u,\"key\":%" PRIu32, cache < 3 ? caches[cache] : "?", pid, key);
    tail(e);
}

uint64_t evlog_lines(const evlog_t *e)
{
    return e->lines;
}

int evlog_close(evlog_t *e)
{
    int rc;
    if (!e)
        return 0;
    write_kept(e, e->nkeep);
    rc = e->err;
    if (fclose(e->f))
        rc = 1;
    free(e->keep);
    free(e->c);
    free(e);
    return rc ? -1 : 0;
}
