/*
 * scen.h - the setup every scenario test starts from: the NCP is node ME of NODES, process PID on
 * endpoint EP with one registered buffer LBUF of LLEN bytes at LVA (every right), mapped to
 * host pages [lpa, lpa + LLEN); peers PEER and PEER2 are played by the test.
 */
#ifndef SCEN_H
#define SCEN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fwhost.h"

#define ME 0u
#define PEER 1u
#define PEER2 2u
#define NODES 3u
#define EP 1u
#define PID 5u
#define LBUF 3u
#define LKEY 0x5EC12E7u
#define LVA 0x0F0010000000ull
#define LLEN 0x10000u
#define RPID 9u
#define RBUF 4u
#define RKEY 0xABCDu
#define SECRET 0x1122334455667788ull
#define ALL_RIGHTS (NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_WRITE | NIC_RIGHT_REMOTE_READ)

static uint64_t lpa;

static inline int scen_setup(void **state)
{
    (void)state;
    fwh_boot(ME, NODES, SECRET);
    fwh_ep_open(EP, PID);
    fwh_reg_proc(PID, EP);
    lpa = fwh_map(PID, LVA, LLEN, ALL_RIGHTS);
    fwh_reg_buf(PID, LBUF, LVA, LLEN, LKEY, ALL_RIGHTS);
    return 0;
}

/* The NCP's MTU, from its info block. */
static inline uint32_t mtu(void)
{
    return fwh.info.mtu;
}

/* The next frame the NCP sent; fails the test when there is none. */
static inline struct pkt_hdr tx_expect(uint8_t type, const uint8_t **payload)
{
    struct pkt_hdr h;
    if (!fwh_tx_next(&h, payload))
        fail_msg("expected a frame of type %u, none sent", type);
    if (h.type != type)
        fail_msg("expected a frame of type %u, got type %u (reason %u)", type, h.type, h.reason);
    return h;
}

static inline struct nic_stats stats(void)
{
    struct nic_stats s;
    fwh_stats(&s);
    return s;
}

/* Time runs to the timer's deadline (it must be armed) and the NCP handles it. */
static inline void timer_fires(void)
{
    uint32_t at = 0;
    assert_true(fh_timer_armed(&at));
    assert_true((int32_t)(at - fh_now()) > 0);
    fh_advance(at - fh_now());
    fwh_run();
}

/* Drops every frame the NCP sent so far (the link lost them); returns how many. */
static inline uint32_t tx_lose_all(void)
{
    struct pkt_hdr h;
    uint32_t n = 0, rx_next[16];
    for (unsigned p = 0; p < 16; p++)
        rx_next[p] = fwh.peer[p].rx_next;
    while (fwh_tx_next(&h, NULL))
        n++;
    for (unsigned p = 0; p < 16; p++)
        fwh.peer[p].rx_next = rx_next[p]; /* nothing arrived */
    return n;
}

#endif /* SCEN_H */
