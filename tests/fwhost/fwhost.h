/*
 * fwhost.h - the host's and the peers' parts for host-native NCP scenario tests (tests/fwhost).
 *
 * The NCP (node `me`) runs on the fake NIC (fake_hal.h) and is driven only through its entry
 * points (ncp_boot, ncp_run_once) and the HAL boundary. The test plays:
 *   the driver    the command ring in SRAM (found through the info block) and its doorbell, the
 *                 event ring in host memory (MISS events answered with FILLs from the tables the
 *                 test registered, as host-driver/src does), the translation tables;
 *   a process     its send queue (SRAM) and doorbell page, its completion queue (host memory);
 *   the peers     frames built with pkt.h, carrying the connection tokens and sequence numbers a
 *                 peer with the same fabric secret uses (docs/wire-protocol.md "Threat model").
 */
#ifndef FWHOST_H
#define FWHOST_H

#include <stddef.h>
#include <stdint.h>

#include "fake_hal.h"
#include "nic_abi.h"
#include "nic_memmap.h"
#include "pkt.h"

#define FWH_EV_LOG2 8u
#define FWH_CQ_LOG2 6u
#define FWH_EV_PA 0x10000u      /* event ring */
#define FWH_CQ_PA 0x20000u      /* + ep * 0x1000: completion queues */
#define FWH_IMG_PA 0x40000u     /* + slot * 0x1000: line images for FILL */
#define FWH_STATS_PA 0x80000u   /* STATS */
#define FWH_DATA_PA 0x100000u   /* pages given to processes from here */

struct fwh_peer {
    uint32_t tx_seq;    /* next sequence number this peer sends to the NCP */
    uint32_t rx_next;   /* next sequence number it expects from the NCP (its cumulative ACK) */
    uint32_t tok_in;    /* token on its frames to the NCP */
    uint32_t tok_out;   /* token the NCP puts on frames to it */
};

struct fwh {
    uint16_t me, nodes;
    uint32_t secret[4];
    struct nic_info info;
    uint32_t cmd_pi, ev_ci;
    uint32_t ev_log2;        /* the event ring's size, as INIT gave it */
    int32_t cmd_status[256]; /* by seq: the CMD_DONE status (1: not answered yet) */
    int auto_fill;           /* answer MISS events with FILLs (default 1), every line the event asks
                              * for (prefetch on a miss: key .. key + lines - 1, in order) */
    int hold_events;         /* 1: the driver does not read the event ring */
    uint32_t done_order[64], n_done; /* CMD_DONE seqs in the order they came (the first 64) */
    uint32_t answered;       /* CMD_DONE events read */
    uint32_t misses;         /* MISS events seen */
    struct nic_event last_miss;
    uint32_t cq_ci[NIC_SENDQ_SLOTS], sq_pi[NIC_SENDQ_SLOTS];
    uint32_t tx_seen;        /* frames the test has taken (fwh_tx_next) */
    uint64_t next_pa;        /* page allocator */
    uint32_t eq_events[NIC_SENDQ_SLOTS]; /* NIC_EV_EQ events per event queue id (ABI 2.1) */
    struct fwh_peer peer[16];
};
extern struct fwh fwh;

/*
 * Runs each test in a child process of its own: the NCP's static state starts from the program's
 * initial image in every test, as after a hardware reset (one boot per process). Returns the
 * number of tests that failed.
 */
struct CMUnitTest;
int fwh_run_tests(const char *group, const struct CMUnitTest *tests, size_t n);
#define FWH_RUN_TESTS(group, tests) fwh_run_tests(group, tests, sizeof(tests) / sizeof((tests)[0]))

/* INIT's prefetch on a miss (its `ep`: VMH lines per miss request) for the next fwh_boot (0). */
extern uint16_t fwh_boot_prefetch;
/* INIT's transport options (its `cache`: NIC_XOPT_*) for the next fwh_boot (0). */
extern uint8_t fwh_boot_xopts;
/* Resets the fake NIC, boots the NCP as node `me`, INIT for `nodes` with the fabric secret. */
void fwh_boot(uint16_t me, uint16_t nodes, uint64_t secret);
/* The NCP runs, the driver serves its events (fills), until everything is quiet. */
void fwh_run(void);

/* Commands: post (returns the seq) and wait; fwh_cmd does both and returns the status. */
uint32_t fwh_cmd_post(struct nic_cmd *c);
int32_t fwh_cmd(struct nic_cmd *c);
int fwh_cmd_answered(uint32_t seq, int32_t *status);
void fwh_ep_open(uint16_t ep, uint16_t pid);
void fwh_stats(struct nic_stats *s);

/* Translation tables (the driver's), consulted by the fills. */
uint64_t fwh_map(uint16_t pid, uint64_t va, uint32_t len, uint32_t rights); /* returns the PA of va */
uint64_t fwh_pa(uint16_t pid, uint64_t va);                                /* the PA va maps to */
void fwh_reg_buf(uint16_t pid, uint32_t buf, uint64_t va, uint64_t len, uint32_t key, uint32_t rights);
void fwh_reg_proc(uint16_t pid, uint16_t ep);
void fwh_unreg_buf(uint16_t pid, uint32_t buf);
void fwh_unmap(uint16_t pid, uint64_t va, uint32_t len); /* the pages' entries go (fills say invalid) */
/* FILL the line of `key` (an entry key: vpn, buffer id, pid) now, at the current epoch. */
void fwh_fill_cmd(struct nic_cmd *c, uint8_t cache, uint16_t pid, uint32_t key); /* the FILL, not posted */
int32_t fwh_fill(uint8_t cache, uint16_t pid, uint32_t key);
/* Everything a pid registered filled now (so nothing misses). */
void fwh_prefill(uint16_t pid);

/* A process: post a send queue entry (slot write + doorbell), take its next completion. */
void fwh_post(uint16_t ep, const struct nic_sq_entry *e);
/* The entry's words only, no doorbell: returns the producer count to ring (NIC_DB_SQ_PI). */
uint32_t fwh_post_entry(uint16_t ep, const struct nic_sq_entry *e);
int fwh_cqe(uint16_t ep, struct nic_cqe *c);
struct nic_sq_entry fwh_write_wr(uint16_t rnode, uint64_t laddr, uint32_t lbuf, uint32_t len, uint16_t rpid,
                                 uint32_t rbuf, uint64_t roff, uint32_t rkey, uint64_t wr_id);

/* Peers. */
void fwh_send(uint16_t src, struct pkt_hdr *h, const void *payload); /* fills dst/src/token/len; injects */
void fwh_send_raw(const void *frame, uint32_t len);
/* A sequenced packet from `src` with its next sequence number (ack = what it received). */
void fwh_send_seq(uint16_t src, struct pkt_hdr *h, const void *payload);
void fwh_ack(uint16_t src); /* a stand-alone ACK of everything the peer received */
/* The next frame the NCP sent (decoded; payload points into it), 0 when none. Sequenced frames
 * advance the peer's rx_next when they are the next it expects. */
int fwh_tx_next(struct pkt_hdr *h, const uint8_t **payload);
uint32_t fwh_tx_pending(void);
/* Memory helpers. */
void fwh_fill_pattern(uint64_t pa, uint32_t len, uint32_t seed);
int fwh_check_pattern(uint64_t pa, uint32_t len, uint32_t seed);

#endif /* FWHOST_H */
