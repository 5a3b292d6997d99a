/*
 * evlog.c - the JSON-lines event log (evlog.h).
 */
#include "evlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV_NODES 256 /* SWITCH_MAX_PORTS */
#define HDR 48u

struct conn {
    bool seen;
    bool resync; /* the last sequenced frame carried RESYNC */
    uint32_t max; /* highest sequence number sent (serial-number order) */
};

struct evlog {
    FILE *f;
    uint64_t clock_hz;
    uint64_t lines;
    int err;
    struct conn *c; /* [src * EV_NODES + dst] */
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

static void head(evlog_t *e, sim_cycle_t now, unsigned node, const char *ev)
{
    uint64_t c = (uint64_t)now;
    uint64_t ns = c / e->clock_hz * 1000000000ull + c % e->clock_hz * 1000000000ull / e->clock_hz;
    if (fprintf(e->f, "{\"cycle\":%" PRIu64 ",\"ns\":%" PRIu64 ",\"node\":%u,\"event\":\"%s\"", c, ns, node, ev) < 0)
        e->err = 1;
    e->lines++;
}

static void tail(evlog_t *e)
{
    if (fputs("}\n", e->f) < 0)
        e->err = 1;
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
        if (r != 6 && fprintf(e->f, ",\"reason\":\"%s\"", r < 6 ? reasons[r] : "?") < 0)
            e->err = 1;
        if (fprintf(e->f, ",\"peer\":%u,\"seq\":%" PRIu32, dst, seq) < 0)
            e->err = 1;
        tail(e);
        return;
    }
    if (type < 1 || type > 3)
        return; /* ACK: not sequenced */
    struct conn *c = &e->c[src * EV_NODES + dst];
    bool resync = flags & 0x01u;
    if (resync && c->seen && !c->resync) {
        head(e, now, src, "giveup");
        if (fprintf(e->f, ",\"peer\":%u,\"seq\":%" PRIu32, dst, seq) < 0)
            e->err = 1;
        tail(e);
        c->seen = false; /* a new sequence starts here */
    }
    c->resync = resync;
    if (c->seen && (int32_t)(seq - c->max) <= 0) {
        head(e, now, src, "retransmit");
        if (fprintf(e->f, ",\"peer\":%u,\"seq\":%" PRIu32 ",\"type\":%u", dst, seq, type) < 0)
            e->err = 1;
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
    if (fprintf(e->f, ",\"cache\":\"%s\",\"pid\":%u,\"key\":%" PRIu32, cache < 3 ? caches[cache] : "?", pid, key) <
        0)
        e->err = 1;
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
    rc = e->err;
    if (fclose(e->f))
        rc = 1;
    free(e->c);
    free(e);
    return rc ? -1 : 0;
}
