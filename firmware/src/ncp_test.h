/*
 * ncp_test.h - the NCP as the firmware test images see it (tests/fw/ncp_*.c, tests/fw/fwhost.c):
 * its entry points, the test hooks, what the driver's commands would do for an image that plays
 * the host's part itself, and read-only views of the state the tests check. Nothing else of the
 * NCP is visible to them: its state is its modules' own (ncp.h), and testapi.c, the one file that
 * implements this API over it, is the only place to change when that state moves.
 *
 * Declarations only; no function here is on the NCP's own paths (nothing calls them but images).
 * Context: like the NCP, the main loop only (call none of them from a hook that the NCP runs,
 * except where a function says so).
 */
#ifndef NCP_TEST_H
#define NCP_TEST_H

#include <stdint.h>

#include "ncp_config.h" /* the build's options: NCP_LOOKUP_STATIC, NCP_NACK, NCP_FASTPATH, NCP_MTU... */
#include "nic_abi.h"
#include "xport.h" /* struct xport_stats */

/* ---- the NCP as main.c runs it ---- */
void ncp_boot(void);     /* reset every state machine, take the node id, enable the event sources */
void ncp_run_once(void); /* one pass of the event loop (the caller sleeps: hal_sleep) */
/* passes for ever (as main.c), `until` called after each: > 0 returns, < 0 no sleep, 0 sleeps (loop.c) */
void ncp_run(int (*until)(void));

/*
 * Hooks, weak in the NCP (returning 0: the entry is DMA'd to the host as usual). An image that
 * plays the host defines them and returns 1 to take the entry itself (the NCP calls them from its
 * event loop, with the entry in a staging slot: copy what you keep).
 */
int ncp_test_on_event(const struct nic_event *ev);
int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *cqe);

/* ---- the host's part, for images without a driver ---- */
uint32_t ncp_test_node(void); /* this NIC's node id (what INIT must name) */
/* What a valid INIT does: `nodes` in the cluster, the event ring at ev_pa of 2^ev_log2 entries,
 * empty. The connections keep the keys ncp_boot gave them (no fabric secret): every node of a
 * test cluster boots alike. */
void ncp_test_init(uint16_t nodes, uint64_t ev_pa, uint32_t ev_log2);
/* What a valid EP_OPEN does: endpoint `ep` (>= 1) of process `pid`, idle, its completion queue at
 * cq_pa of 2^cq_log2 entries. */
void ncp_test_ep_open(uint8_t ep, uint16_t pid, uint64_t cq_pa, uint32_t cq_log2);
/* What EP_CLOSE does first: every request of `ep` not retired completes NIC_ST_FLUSHED, now (the
 * endpoint stays open: no wait for its packets to leave the windows). */
void ncp_test_ep_flush(uint8_t ep);
/* The host consumed every event produced so far (an EV_CI doorbell up to the producer count). */
void ncp_test_events_consumed(void);
/* Entries per send queue (the slot of request i is i % this, NIC_SENDQ_STRIDE apart per endpoint
 * from NIC_SRAM_SENDQ_BASE), and the send queue doorbell: producer count `pi` rung for `ep`, as
 * the doorbell FIFO delivers it. */
uint32_t ncp_test_sq_entries(void);
void ncp_test_sq_doorbell(uint8_t ep, uint32_t pi);

/* ---- lookups: what FILL, STATIC_LOAD and INVALIDATE do once their DMA is in ---- */
uint32_t ncp_test_line_bytes(uint8_t cache);                   /* a line image of `cache`, bytes */
void ncp_test_geom(struct nic_cache_geom g[NIC_CACHE__COUNT]); /* as nic_info reports it */
uint16_t ncp_test_epoch(uint8_t cache, uint16_t pid);          /* pid's current epoch in `cache` */
/* Installs the line image (dynamic build: FILL at `epoch`; static: STATIC_LOAD); the command's
 * status (NIC_ST_OK, NIC_ST_NO_RESOURCES: table bucket full, ...). */
int32_t ncp_test_fill(uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch, const void *image);
int32_t ncp_test_static_load(uint8_t cache, uint16_t pid, uint32_t line, const void *image);
void ncp_test_invalidate(uint8_t cache, uint16_t pid, uint32_t line, uint32_t n);

/* ---- DMA through the NCP's queue ---- */
/* Queues a read of len bytes (<= 64 KiB) at host address pa into dst (NIC SRAM, 16-byte aligned),
 * behind every DMA queued before it; returns its ticket. */
uint32_t ncp_test_dma_from_host(void *dst, uint64_t pa, uint32_t len);
/* 1 once every DMA queued up to and including the one of `ticket` completed (run the NCP meanwhile). */
int ncp_test_dma_passed(uint32_t ticket);

/* ---- statistics ---- */
/* Everything STATS reports (struct nic_stats: counters, caches, miss table, doorbells), gathered now. */
void ncp_test_stats(struct nic_stats *s);
/* The NCP's own counters that STATS does not report. */
struct ncp_test_counters {
    uint32_t bad_desc;      /* malformed send queue entries */
    uint32_t dma_errors;    /* DMA requests that completed with an error */
    uint32_t ctl_drops;     /* control frames not sent: no control buffer */
    uint32_t resp_full;     /* read requests refused: response slots and queue full */
    uint32_t miss_full;     /* misses not recorded: miss table full */
    uint32_t giveups;       /* connections that reached the retry limit */
    uint32_t resumes_sent;  /* RESUME NACKs sent after fills */
    uint32_t resp_queued;   /* read requests queued behind busy response slots */
    uint32_t read_timeouts; /* initiator reads failed UNREACHABLE by the read timer */
    uint32_t defers;        /* retransmission deadlines re-armed: the packet at una had not left */
};
void ncp_test_counters(struct ncp_test_counters *c);
/* The transport counters of this node's connection with `peer` (both directions). */
void ncp_test_peer_stats(uint32_t peer, struct xport_stats *st);

/*
 * Fast-path samples (docs/firmware.md "Fast path"), core cycles per packet:
 *   NCP_TEST_FP_TX   a data packet sent (write segment / read response) whose pages translated
 *   NCP_TEST_FP_RX   a data packet received and delivered to the host
 *   NCP_TEST_FP_ACK  a stand-alone ACK frame queued
 * n / sum / max / bytes over every sample since the last reset, and the latest NCP_TEST_FP_RING
 * samples (sample i at s[i % NCP_TEST_FP_RING], saturated at 0xFFFF) for medians.
 */
enum { NCP_TEST_FP_TX, NCP_TEST_FP_RX, NCP_TEST_FP_ACK, NCP_TEST_FP__N };
#define NCP_TEST_FP_RING 256u
struct ncp_test_fp {
    uint32_t n, sum, max, bytes;
    uint16_t s[NCP_TEST_FP_RING];
};
uint32_t ncp_test_fp_count(unsigned k);              /* samples of kind k since the reset (cheap) */
void ncp_test_fp(unsigned k, struct ncp_test_fp *f); /* kind k's figures and samples */
void ncp_test_fp_reset(void);                        /* every kind, and the profile below */
/* Development profile (configured with -DNCP_PROFILE=ON): checkpoint k's cycles, instructions and
 * count in out[0..2]; 0 (out untouched) when the build does not profile or k is out of range. */
int ncp_test_prof(unsigned k, uint32_t out[3]);

/* ---- operations (initiator) and read responses (responder) ---- */
/* Initiator operation slot `slot` (< ncp_test_op_slots()). */
struct ncp_test_op {
    uint8_t live;     /* in progress (allocated, not finished) */
    uint8_t kind;     /* NIC_OP_RDMA_WRITE / NIC_OP_RDMA_READ */
    uint8_t awaiting; /* a read whose request was acknowledged: its responses are awaited */
    uint32_t id;      /* its operation id (on the wire) */
    uint32_t len;     /* bytes requested */
    uint32_t sent;    /* bytes segmented (write) / request sent (read: 1) */
    uint32_t done;    /* bytes acknowledged (write) / written locally (read) */
};
uint32_t ncp_test_op_slots(void);
int ncp_test_op(uint32_t slot, struct ncp_test_op *o); /* fills *o; returns o->live */
/* Reads awaiting their responses (live, request acknowledged): cheap enough to poll every pass. */
uint32_t ncp_test_reads_awaiting(void);
/* Allocates an operation and frees it unused (one more use of the lowest free slot, as an
 * operation that completed leaves it); its slot and id. 0 when every slot is in use. */
int ncp_test_op_cycle(uint32_t *slot, uint32_t *id);
/* Responder activity: responses started (a count that advances by one per read request served:
 * compare two readings), being served now, and the bytes sent of those being served. */
struct ncp_test_resp {
    uint32_t started, active, sent;
};
void ncp_test_responder(struct ncp_test_resp *r);

/* ---- time ---- */
uint32_t ncp_test_read_timeout(void); /* ticks an awaited read response may take (docs/firmware.md) */
/* After the image kept the NCP from running (a hang): every transport deadline is looked at again
 * on the next pass, as when one moved earlier. */
void ncp_test_timers_rescan(void);

#endif /* NCP_TEST_H */
