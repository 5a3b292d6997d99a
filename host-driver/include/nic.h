/*
 * nic.h - the user-level communication library: verbs-like RDMA write and read between processes
 * on different nodes (docs/api.md has every call with an example).
 *
 * Model: a process opens the device (nic_dev_open: its handle to the driver, like opening
 * /dev/nic), opens endpoints (up to NIC_MAX_EPS; each a doorbell page, a send queue in NIC memory
 * or, for the NIC's host endpoints (up to 496 beyond its 15 resident ones, issue 15), in a page of
 * its own memory, a completion queue in its own memory pinned by the driver), registers memory (a handle and a
 * remote key to give to peers), posts work requests and polls or waits for completions: per
 * endpoint (nic_poll, nic_wait), or for all its endpoints at once through its event queue
 * (nic_eq_open, nic_eq_poll, nic_eq_wait: one queue, a blocking wait woken by the NIC's
 * interrupt, and target-side notifications of writes with immediate data).
 *
 * Errors: every call returns NIC_OK (>= 0 for counts) or a negative enum nic_err; a request that
 * was accepted (NIC_OK) always ends in exactly one completion if it was signalled or failed,
 * carrying an enum nic_wc_status. Nothing crashes on a bad handle, a closed endpoint or a bad
 * range; nothing leaks: closing the endpoint and the device returns every pinned page and NIC
 * resource.
 *
 * Contract: one process = one nic_dev; calls of one process are not re-entrant (cooperative
 * host threads). nic_wait blocks (yields to the simulator).
 */
#ifndef NIC_H
#define NIC_H

#include <stdint.h>

#include "nicdrv.h"

enum nic_err {
    NIC_OK = 0,
    NIC_EINVAL = -1,     /* bad argument: length 0 or > NIC_MAX_XFER, unknown rights/flags, NULL */
    NIC_EBADEP = -2,     /* the endpoint is not open (never opened, closed, or another's) */
    NIC_EBADHANDLE = -3, /* no such registered memory handle in this process */
    NIC_EBOUNDS = -4,    /* the local range is not inside one registered buffer */
    NIC_ERIGHTS = -5,    /* the local buffer lacks the right the operation needs */
    NIC_EQFULL = -6,     /* the send queue is full, or too many completions not polled: poll, then retry */
    NIC_EBUSY = -7,      /* NIC_MAX_EPS endpoints open already; nic_eq_open: a queue is open, or
                          * endpoints are (open the queue first) */
    NIC_ENORES = -8,     /* the NIC or the driver has no room (endpoints, static tables) */
    NIC_ENOMEM = -9,     /* host memory or host tables exhausted */
    NIC_EDEV = -10,      /* the device is not up or its firmware stopped */
    NIC_ETIMEDOUT = -11, /* nic_wait: nothing completed in time */
    NIC_EPEER = -12,     /* remote node id out of range */
    NIC_ENOEQ = -13,     /* nic_eq_*: the process has no event queue open */
    NIC_ELATE = -14,     /* nic_upcall_done: the upcall's grace period ended (its pages are gone) */
};

/* Completion statuses (the NCP's enum nic_status, named for users). */
enum nic_wc_status {
    NIC_WC_SUCCESS = 0,
    NIC_WC_BAD_DESC = -1,    /* the NCP found the request malformed */
    NIC_WC_BAD_HANDLE = -2,  /* local address not registered / remote buffer unknown */
    NIC_WC_BOUNDS = -3,      /* outside the remote buffer */
    NIC_WC_RIGHTS = -4,      /* a buffer lacks the access right */
    NIC_WC_KEY = -5,         /* wrong remote key */
    NIC_WC_UNREACHABLE = -6, /* the peer did not answer within the retry limit */
    NIC_WC_FLUSHED = -7,     /* the endpoint was closed with the request outstanding */
    NIC_WC_HOST_ERROR = -8,  /* host DMA error */
    NIC_WC_NO_RESOURCES = -9, /* nic_post_recv: NIC_MQ_DEPTH buffers posted and not yet used */
    NIC_WC_RNR = -12,        /* nic_post_send: the target queue had no buffer posted through every retry */
    NIC_WC_TOO_BIG = -13,    /* nic_post_send: the message is longer than the target's posted buffer */
};

#define NIC_ACCESS_LOCAL_READ NIC_RIGHT_LOCAL_READ     /* source of my RDMA writes */
#define NIC_ACCESS_LOCAL_WRITE NIC_RIGHT_LOCAL_WRITE   /* destination of my RDMA reads */
#define NIC_ACCESS_REMOTE_WRITE NIC_RIGHT_REMOTE_WRITE /* peers may RDMA-write into it */
#define NIC_ACCESS_REMOTE_READ NIC_RIGHT_REMOTE_READ   /* peers may RDMA-read from it */

#define NIC_CQ_VA_DEFAULT 0xFFFF0000u /* completion queue pages: endpoint slot k at + k pages */
#define NIC_MAX_EPS 8u                /* endpoints a process may have open at once */
#define NIC_EP_IDS_MAX 512u           /* NIC endpoint ids (resident and host, ABI 2.2) the library knows */

typedef struct nic_dev nic_dev_t;
typedef uint32_t nic_ep_t; /* generation << 16 | endpoint: a closed endpoint's handle stays invalid */

struct nic_mr { /* what nic_reg returns; (node, pid, handle, rkey) is what a peer needs */
    uint32_t handle;
    uint32_t rkey;
    uint16_t node, pid;
    uint64_t va, len;
};

struct nic_remote { /* a peer's buffer, as the peer got it from nic_reg */
    uint16_t node, pid;
    uint32_t handle, rkey;
};

struct nic_wr {
    uint64_t local_va;
    uint32_t len;
    struct nic_remote remote;
    uint64_t remote_offset;
    uint64_t wr_id;
    int signaled; /* 1: a completion also on success (failures always complete) */
    int with_imm; /* nic_post_write: a write with immediate: when all of it is in the target's
                   * memory, the target process gets NIC_EV_IMM with `imm` (its event queue opened
                   * with NIC_EQ_NOTIFY); reads: NIC_EINVAL */
    uint32_t imm; /* 0..NIC_IMM_MAX (16 bits: the wire carries it in the header) */
};

struct nic_wc {
    uint64_t wr_id;
    int status;     /* enum nic_wc_status */
    uint32_t bytes; /* transferred */
    uint8_t op;     /* NIC_OP_RDMA_WRITE / NIC_OP_RDMA_READ */
};

struct nic_dev_attr {
    uint64_t cq_va; /* page-aligned: NIC_MAX_EPS completion queue pages from here (0: default) */
    uint64_t eq_va; /* page-aligned: the event queue's page (0: the page after the CQ pages) */
    uint64_t sq_va; /* page-aligned: NIC_MAX_EPS send queue pages from here, used by host endpoints
                     * (issue 15; 0: the pages after the event queue's page) */
    int no_inline;  /* 1: never inline; 0 (default): writes and sends of at most NIC_INLINE_MAX bytes
                     * carry their data in the send queue entry, read from local_va when posted
                     * (ABI 2.4, when the firmware has NIC_CAP_INLINE; docs/api.md "Inline writes") */
};

/* ---- event queue (docs/api.md "Event queue") ---- */
#define NIC_EQ_NOTIFY 0x1u /* nic_eq_attr.flags: writes with immediate to this process are reported */
#define NIC_EQ_AFTER_EPS 0x2u /* nic_eq_attr.flags: the queue may open while endpoints are open; those
                               * stay unbound (their completions: nic_poll / nic_wait only), endpoints
                               * opened later are bound. For a queue of notifications and messages. */

struct nic_eq_attr {
    uint32_t log2_entries; /* 2..6 (0: 6, 64 entries) */
    uint32_t flags;        /* NIC_EQ_NOTIFY */
};

enum nic_ev_kind {
    NIC_EV_COMPLETION = 1, /* ep, wc: a completion of one of the process's endpoints */
    NIC_EV_IMM = 2,        /* a peer's write with immediate landed: imm, len, handle, offset, src */
    NIC_EV_OVERFLOW = 3,   /* the queue was full: `lost` entries dropped by the NIC (completions
                            * among them are not lost: they are reported anyway; notifications are) */
    NIC_EV_UPCALL = 4,     /* the driver must take back the pinned pages [va, +len) of ours: answer
                            * with nic_upcall_done(token) within its grace period (then they go at
                            * once), or they go when it ends */
    NIC_EV_RECV = 5,       /* a message for our queue `queue`: status NIC_WC_SUCCESS: len bytes in
                            * the posted buffer `handle` at `offset`, from src_node's process
                            * src_pid; NIC_WC_TOO_BIG: a message of len bytes did not fit (nothing
                            * written, the buffer stays posted); NIC_WC_HOST_ERROR: the buffer was
                            * used up by a failed placement (the message comes in the next one) */
};

struct nic_ev {
    int kind;           /* enum nic_ev_kind */
    nic_ep_t ep;        /* NIC_EV_COMPLETION */
    struct nic_wc wc;   /* NIC_EV_COMPLETION */
    uint32_t imm, len;  /* NIC_EV_IMM: the immediate, the write's length */
    uint32_t handle;    /* NIC_EV_IMM: the target buffer (ours) */
    uint64_t offset;    /* NIC_EV_IMM: where in it the write began (low 32 bits) */
    uint16_t src_node, src_pid; /* NIC_EV_IMM: the writer's node (its process: 0, not on the wire) */
    uint32_t lost;      /* NIC_EV_OVERFLOW */
    uint64_t va;        /* NIC_EV_UPCALL: the range (len: its bytes) */
    uint32_t token;     /* NIC_EV_UPCALL: what nic_upcall_done answers */
    uint32_t queue;     /* NIC_EV_RECV: our message queue */
    int status;         /* NIC_EV_RECV: enum nic_wc_status */
};

/* Open/close the device for process pid. close releases everything still open (endpoint,
 * registrations) and frees the handle. */
int nic_dev_open(nicdrv_t *drv, uint32_t pid, const struct nic_dev_attr *attr, nic_dev_t **dev);
int nic_dev_close(nic_dev_t *dev);

int nic_ep_open(nic_dev_t *dev, nic_ep_t *ep);
/* Closes the endpoint; work still outstanding completes with NIC_WC_FLUSHED. Every completion
 * not yet polled is returned in wc[0..max) (the rest are dropped); returns how many. When it
 * returns, nothing the endpoint sent lands anywhere any more (docs/api.md "Close"). */
int nic_ep_close(nic_dev_t *dev, nic_ep_t ep, struct nic_wc *wc, int max);

/* Register [va, va+len) with NIC_ACCESS_* rights. */
int nic_reg(nic_dev_t *dev, uint64_t va, uint64_t len, uint32_t access, struct nic_mr *mr);
int nic_dereg(nic_dev_t *dev, uint32_t handle);
/* REGISTER-WAIT: nic_reg, but when there is no room (NIC_ENORES: the NIC's tables, static build;
 * NIC_ENOMEM: the driver's tables) it waits for a deregistration (any process's) and tries again,
 * up to timeout_cycles: then NIC_ETIMEDOUT. Other errors as nic_reg, at once. */
int nic_reg_wait(nic_dev_t *dev, uint64_t va, uint64_t len, uint32_t access, struct nic_mr *mr,
                 uint64_t timeout_cycles);

int nic_post_write(nic_dev_t *dev, nic_ep_t ep, const struct nic_wr *wr);
int nic_post_read(nic_dev_t *dev, nic_ep_t ep, const struct nic_wr *wr);

/* ---- message queues (docs/api.md "Message queues"): two-sided sends into posted buffers ----
 * nic_post_recv posts [local_va, +len) (registered with NIC_ACCESS_LOCAL_WRITE) as a receive buffer
 * of this node's queue `queue` (1..NIC_MQ_QUEUES-1) with key qkey: the first post claims a free
 * queue for this process (until the endpoint closes); a message that lands in it is reported as
 * NIC_EV_RECV in the event queue (opened with NIC_EQ_NOTIFY: else NIC_ENOEQ). Completes at once
 * (op NIC_OP_POST_RECV): NIC_WC_SUCCESS, NIC_WC_KEY (the queue is another's or has another key),
 * NIC_WC_BAD_HANDLE, NIC_WC_NO_RESOURCES (NIC_MQ_DEPTH buffers posted not yet used).
 * nic_post_send sends [local_va, +len) (len <= NIC_MSG_MAX and the MTU) to queue remote.handle
 * of node remote.node with its key remote.rkey (remote.pid, remote_offset unused); it completes
 * (op NIC_OP_SEND) NIC_WC_SUCCESS when the bytes are in the target's buffer, else NIC_WC_RNR (no
 * buffer posted through NIC_MQ_RNR_TRIES retries), NIC_WC_TOO_BIG, NIC_WC_KEY, NIC_WC_BAD_HANDLE
 * (no such queue), or as a write fails. NIC_EINVAL: a bad queue id, a length 0 or beyond
 * NIC_MSG_MAX, with_imm. */
int nic_post_recv(nic_dev_t *dev, nic_ep_t ep, uint32_t queue, uint32_t qkey, const struct nic_wr *wr);
int nic_post_send(nic_dev_t *dev, nic_ep_t ep, const struct nic_wr *wr);

/* Up to max completions (0 if none); never blocks. */
int nic_poll(nic_dev_t *dev, nic_ep_t ep, struct nic_wc *wc, int max);
/* One completion, waiting up to timeout_cycles (simulated NIC core cycles). */
int nic_wait(nic_dev_t *dev, nic_ep_t ep, struct nic_wc *wc, uint64_t timeout_cycles);
/* Requests posted whose retirement the library has not seen yet (a completion of it or of a later
 * request: requests retire in order). */
int nic_outstanding(const nic_dev_t *dev, nic_ep_t ep);

/* The event queue of the process (one): endpoints opened after it report their completions there.
 * NIC_EBUSY: one is open, or endpoints are (unless NIC_EQ_AFTER_EPS); NIC_ENORES: the NIC has no free queue; NIC_EINVAL: bad
 * attr. nic_eq_close: no entry lands after it; NIC_ENOEQ if none is open. */
int nic_eq_open(nic_dev_t *dev, const struct nic_eq_attr *attr);
int nic_eq_close(nic_dev_t *dev);
/* Up to max events (completions of every endpoint, notifications, overflow reports); never blocks;
 * the work per event does not depend on the number of endpoints. NIC_ENOEQ: no queue. */
int nic_eq_poll(nic_dev_t *dev, struct nic_ev *ev, int max);
/* One event, sleeping until the NIC's interrupt for the queue (no polling) or timeout_cycles:
 * NIC_ETIMEDOUT; NIC_ENOEQ: no queue (or closed meanwhile); NIC_EDEV: the device stopped. */
int nic_eq_wait(nic_dev_t *dev, struct nic_ev *ev, uint64_t timeout_cycles);
/* The answer to a NIC_EV_UPCALL: the process is done with the range, the driver may take the pages
 * now. NIC_ELATE: its grace period had ended (they are gone already). */
int nic_upcall_done(nic_dev_t *dev, uint32_t token);

/* The library's own checks (stash_dropped, cqe_bogus, eqe_bogus stay 0 unless something is broken:
 * completions it had to drop, impossible by construction; completion / event queue entries naming
 * nothing) and its work: completion queue reads by nic_poll/nic_wait, event queue reads, sleeps in
 * nic_eq_wait, consumer counts told the NIC while polling, entries the NIC reported lost
 * (NIC_EV_OVERFLOW). */
struct nic_lib_counters {
    uint64_t stash_dropped, cqe_bogus;
    uint64_t eqe_bogus, cq_reads, eq_reads, eq_sleeps, eq_credits, eq_lost;
    uint64_t reg_waits; /* nic_reg_wait: attempts refused for want of room, then waited */
    uint64_t inline_posts; /* writes and sends posted inline (ABI 2.4: their data in the entry) */
};
int nic_lib_counters(const nic_dev_t *dev, struct nic_lib_counters *c);

const char *nic_strerror(int err);
const char *nic_wc_status_str(int status);

#endif /* NIC_H */
