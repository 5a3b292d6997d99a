/*
 * pcap.c - packet capture at the switch (pcap.h).
 */
#include "pcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pcap_cap {
    FILE *f;
    cluster_t *cl;
    uint64_t clock_hz;
    uint64_t frames;
    int err;
};

static void put32(uint8_t *b, uint32_t v)
{
    memcpy(b, &v, 4); /* native order: the magic tells readers which */
}

void pcap_cap_frame(pcap_cap_t *p, sim_cycle_t now, const uint8_t *frame, size_t len)
{
    uint8_t rec[16];
    /* ns = cycles * 1e9 / clock_hz without overflow for any run length */
    uint64_t c = (uint64_t)now, hz = p->clock_hz;
    uint64_t sec = c / hz, rem = c % hz;
    uint64_t ns = rem * 1000000000ull / hz;
    put32(rec, (uint32_t)sec);
    put32(rec + 4, (uint32_t)ns);
    put32(rec + 8, (uint32_t)len);
    put32(rec + 12, (uint32_t)len);
    if (fwrite(rec, 1, sizeof rec, p->f) != sizeof rec || fwrite(frame, 1, len, p->f) != len)
        p->err = 1;
    p->frames++;
}

static void tap(void *ctx, sim_cycle_t now, uint32_t port, const uint8_t *frame, size_t len)
{
    (void)port;
    pcap_cap_frame(ctx, now, frame, len);
}

pcap_cap_t *pcap_cap_open(const char *path, cluster_t *cl, uint64_t clock_hz)
{
    struct pcap_cap *p = calloc(1, sizeof *p);
    uint8_t hdr[24];

    if (!p)
        return NULL;
    p->f = fopen(path, "wb");
    if (!p->f) {
        int e = errno;
        free(p);
        errno = e;
        return NULL;
    }
    p->cl = cl;
    p->clock_hz = clock_hz ? clock_hz : 200000000ull;
    put32(hdr, 0xa1b23c4du); /* nanosecond timestamps */
    {
        uint16_t ver[2] = { 2, 4 }; /* version 2.4, native order like the magic */
        memcpy(hdr + 4, ver, 4);
    }
    put32(hdr + 8, 0);                     /* thiszone */
    put32(hdr + 12, 0);                    /* sigfigs */
    put32(hdr + 16, SWITCH_MAX_FRAME);     /* snaplen: whole frames */
    put32(hdr + 20, PCAP_LINKTYPE_USER0);
    if (fwrite(hdr, 1, sizeof hdr, p->f) != sizeof hdr) {
        fclose(p->f);
        free(p);
        errno = EIO;
        return NULL;
    }
    if (cl)
        switch_set_tap(cluster_switch(cl), tap, p);
    return p;
}

uint64_t pcap_cap_frames(const pcap_cap_t *p)
{
    return p->frames;
}

int pcap_cap_close(pcap_cap_t *p)
{
    int rc;
    if (!p)
        return 0;
    if (p->cl)
        switch_set_tap(cluster_switch(p->cl), NULL, NULL);
    rc = p->err;
    if (fclose(p->f))
        rc = 1;
    free(p);
    return rc ? -1 : 0;
}
