/*
 * ncp.h - the network control program's shared core: sizes, timing, counters, operation and
 * response ids, the window cookies, the per-node state every role reads (struct ncp) and the work
 * bitmaps of the event loop (struct ncp_work). Each module's own API is in its header:
 *
 *   loop.c       boot, the run-to-completion event loop                       (loop.h)
 *   dmaq.c       DMA request queue with continuations (in-order completions)  (dmaq.h)
 *   cmd.c        host commands and the event ring to the host                 (cmd.h)
 *   xlate.c      VMH/CBH/PCH lookups, misses, fills, invalidations            (xlate.h)
 *   conn.c       connections: secrets, ISNs and tokens, ACKs we owe           (conn.h)
 *   rx.c         receive dispatch: the RX ring, validation, the transport's
 *                verdict, then the role; placement of data into host memory   (rx.h)
 *   requester.c  endpoints and send queue entries, segmentation, read requests (requester.h)
 *   responder.c  remote writes placed, read requests served, responses streamed (responder.h)
 *   completer.c  ACK/NACK/give-up/DMA-error verdicts on our packets, read
 *                responses consumed                                           (completer.h)
 *   ops.c        the operation table, retirement in request order, CQEs        (ops.h)
 *   evq.c        per-process event queues: entries, overflow, interrupts       (evq.h)
 *   epc.c        host endpoints: contexts cached from host memory, send queues
 *                fetched by DMA, doorbells of ids beyond the resident ones    (epc.h)
 *   segment.c    the packet builder: translate, sequence, header, DMA, queue   (segment.h)
 *   tx.c         TX frame pool, MAC feed, control frames                       (tx.h)
 *   timer.c      the timer service and the transport's timeouts/give-ups       (timer.h)
 *
 * docs/firmware.md walks one write and one read through these files.
 * Context: everything runs in the main loop (run to completion); nothing here is re-entrant.
 */
#ifndef NCP_H
#define NCP_H

#include <stdint.h>

#include "hal.h"
#include "lkc.h"
#include "misstab.h"
#include "ncp_config.h"
#include "ncp_rt.h"
#include "ncp_util.h"
#include "nic_abi.h"
#include "pkt.h"
#include "xport.h"

/* ---- sizes (all bounded; see docs/firmware.md for the memory budget) ---- */
#define NCP_SQ_N NCP_SENDQ_ENTRIES
_Static_assert(NCP_SENDQ_ENTRIES <= NIC_SENDQ_STRIDE / 64u,
               "NCP_SENDQ_ENTRIES: a send queue holds at most NIC_SENDQ_STRIDE / 64 entries (reconfigure)");
#define NCP_EPS (NCP_MAX_PROCS < NIC_SENDQ_SLOTS ? NCP_MAX_PROCS : NIC_SENDQ_SLOTS) /* resident endpoints */
/* Host endpoints (issue 15 item 2, epc.c): ids NCP_EPS..NCP_EP_IDS-1, one doorbell page each, their
 * contexts in host memory, NCP_EPC_N of them cached in ep_tab[NCP_EPS..NCP_EP_SLOTS-1]. */
#define NCP_EP_IDS NIC_BAR_DOORBELL_PAGES
#define NCP_EPC_N (NCP_EPS <= 16u ? 16u : 32u - NCP_EPS)
#define NCP_EP_SLOTS (NCP_EPS + NCP_EPC_N)
#define NCP_CMD_N 32u
#define NCP_OPS 64u         /* initiator operations outstanding (all endpoints) */
#define NCP_RESP 16u        /* RDMA read responses being served */
#define NCP_MISS_N 32u      /* outstanding miss requests */
#define NCP_RX_LOG2 4u      /* MAC RX ring entries */
#define NCP_TX_N 8u         /* data frames being built or sent */
#define NCP_CTL_N 16u       /* control (ACK/NACK) frames */
#define NCP_FRAME_BYTES ((PKT_HDR_BYTES + NCP_MTU + 4u + 15u) & ~15u)
#define NCP_DMAQ_N 64u
#define NCP_STAGE_N 16u     /* event / completion staging slots */
#define NCP_PAGE 4096u
#define NCP_SEG_PIECES (NCP_MTU / NCP_PAGE + 2u) /* host pages one segment can span */

/* Transport timing, in timer ticks (core cycles at 200 MHz). */
#define NCP_RTO (NCP_RTO_US * 200u) /* 200 us unless built with -DNCP_RTO_US=... (ncp_config.h) */
#define NCP_NACK_DELAY 4000u  /* 20 us: resend after a busy NACK (and a miss NACK without RESUME) */
/* After a miss NACK: wait for the receiver's RESUME, resend anyway after this (a lost RESUME, a
 * fill that went elsewhere). */
#define NCP_MISS_HOLD NCP_RTO
#define NCP_ACK_WAIT (NCP_RTO / 4u) /* 50 us: longest an ACK owed waits for the receive DMAs behind it (conn.c) */
#define NCP_MISS_EXPIRE 2000000u /* 10 ms: re-post a miss the host did not answer */

/* ---- counters (struct nic_stats is what STATS reports) ---- */
/*
 * Each module keeps its own counters (a static struct X_cnt) and adds them into the statistics
 * with X_counters(s, k); ncp_counters_gather (loop.c) calls every one of them for STATS. struct
 * nic_stats is what STATS reports; struct ncp_counters the NCP's own counters besides.
 */
struct ncp_counters {
    uint32_t bad_desc, dma_errors, ctl_drops, resp_full, miss_full;
    uint32_t giveups; /* connections that reached the retry limit (s.timeouts: every timeout) */
    uint32_t resumes_sent; /* RESUME NACKs: a fill arrived, peers told MISS may resend now */
    uint32_t resp_queued;  /* read requests queued: every response slot busy (responder.c) */
    uint32_t read_timeouts; /* initiator reads failed UNREACHABLE: the responder went silent */
    uint32_t defers;        /* retransmission deadlines re-armed, not timeouts (conn.c, conn_defer) */
};

/*
 * Fast-path cost per packet (benchmark figures, docs/firmware.md "Fast path"), core cycles:
 *   FP_TX   a data packet (write segment / read response) whose pages translated: from emit()
 *           taking the cookie to the DMA requests queued, plus the completions of its DMA
 *           pieces up to the frame handed to the MAC (tx_reap)
 *   FP_RX   a data packet delivered: from its RX descriptor to the DMA requests queued, plus
 *           the completions of its pieces up to the RX buffer back to the MAC and the ACK value
 *   FP_ACK  a stand-alone ACK frame queued (send_flush_acks; often one per several packets)
 * n/sum/max over every sample, plus a ring of the latest 256 samples for medians.
 */
enum { FP_TX, FP_RX, FP_ACK, FP__N };
#define NCP_FP_RING 256u
struct ncp_fp {
    uint32_t n, sum, max, bytes;
    uint16_t s[NCP_FP_RING];
};

/* ---- endpoints (requester.c; opened and closed by cmd.c) ---- */
enum ep_state {
    EP_CLOSED, /* not open, or closed (its requests flushed) */
    EP_IDLE,   /* open, nothing to send */
    EP_ACTIVE, /* an entry being taken or segmented */
    EP_PARKED, /* waits for a fill (a translation of its current request missed) */
    EP__STATES
};
extern const char *const ep_state_name[EP__STATES];

struct ncp_ep {
    uint8_t state;
    uint8_t cq_log2;
    uint16_t pid;
    uint64_t cq_pa;
    uint32_t cq_n;   /* completions produced */
    uint32_t sq_pi;  /* last producer count rung */
    uint32_t sq_ci;  /* entries copied out of SRAM (taken) */
    uint32_t sq_done; /* requests retired, in request order: slots below it are free (cqe.sq_ci) */
    int16_t cur;     /* op being segmented, or -1 */
    uint8_t closing; /* EP_CLOSE seen, answered BUSY until its packets are out of every window */
    uint8_t eq;      /* event queue its completions are reported to (EP_OPEN d; 0: none; evq.c) */
};

/*
 * State transitions are written through NCP_SET_STATE: with NCP_TRACE_STATES (a debug build,
 * -DNCP_TRACE_STATES=ON) each one is printed on the console ("ncp: op 3 ACTIVE -> FREE"); in the
 * normal build it is the plain store.
 */
#if NCP_TRACE_STATES
void ncp_trace_state(const char *what, uint32_t idx, const char *from, const char *to);
#define NCP_SET_STATE(obj, names, what, idx, to)                                    \
    do {                                                                            \
        if ((obj)->state != (to))                                                   \
            ncp_trace_state((what), (uint32_t)(idx), (names)[(obj)->state], (names)[(to)]); \
        (obj)->state = (uint8_t)(to);                                               \
    } while (0)
#else
#define NCP_SET_STATE(obj, names, what, idx, to) ((obj)->state = (uint8_t)(to))
#endif

/* ---- initiator operations (ops.c) ---- */
enum op_state {
    OP_FREE,   /* the slot is free */
    OP_ACTIVE, /* taken from a send queue entry, until accounted for byte by byte (then its result
                * waits in its endpoint's slot record for retirement, and the op is FREE) */
    OP__STATES
};
extern const char *const op_state_name[OP__STATES];

struct ncp_op {
    uint8_t state, ep, kind, flags;
    uint16_t reserved_gen, rnode;
    uint32_t id; /* its operation id (op_id): index | generation << NCP_ID_SHIFT */
    int32_t status;
    uint8_t awaiting; /* read: its request was acknowledged, the responses are awaited (watched
                       * by ops_read_check: docs/firmware.md "Read timeout") */
    uint64_t laddr, roff, wr_id;
    uint32_t len, rbuf, rkey;
    uint16_t rpid;
    uint16_t lpid;
    uint32_t sent;  /* bytes segmented (write) / request sent (read: 1) */
    uint32_t done;  /* bytes acknowledged (write) / written locally (read) */
    uint32_t req;   /* its index in the endpoint's send queue stream (cqe.req) */
    uint16_t imm;   /* a write with immediate (NIC_WR_IMM): the immediate, on every segment */
    uint8_t last_flags; /* its last segment's flags: PKT_F_LAST, | PKT_F_IMM */
};

/* ---- RDMA read responses being served (responder.c) ---- */
enum resp_state {
    RESP_FREE,    /* the slot is free */
    RESP_SENDING, /* segments still to build (resp_poll streams them) */
    RESP_ACKWAIT, /* every segment built: waits for their ACKs (a give-up sends them again) */
    RESP__STATES
};
extern const char *const resp_state_name[RESP__STATES];

struct ncp_resp {
    uint8_t state, failed, reserved_gen;
    int8_t fail_status; /* why it failed (enum nic_status), carried by its void segments */
    uint16_t peer, pid;
    uint32_t id;     /* index | generation << NCP_ID_SHIFT, in its cookies */
    uint32_t op;     /* initiator's op id */
    uint64_t va;     /* start in the owner's address space */
    uint32_t len, sent, done;
    uint8_t rewinds; /* give-ups of its connection that sent its lost segments again (as void) */
};
#define NCP_RESP_REWINDS 3u /* then a give-up drops them: see resp_on_giveup */

/* The operation / response is live and still the one id `id` names (its slot not reused since). */
static inline int op_live(const struct ncp_op *o, uint32_t id)
{
    return o->state == OP_ACTIVE && o->id == id;
}
static inline int resp_live(const struct ncp_resp *r, uint32_t id)
{
    return r->state != RESP_FREE && r->id == id;
}

/*
 * Operation ids (initiator ops, on the wire in `op`) and response ids (responder side, in cookies
 * only): index in the low NCP_ID_SHIFT bits, a 26-bit generation above, drawn from one counter per
 * table (ops.c op_gen, responder.c resp_gen; random start at INIT: ops_seed, resp_seed), so an id comes back only after 2^26
 * allocations of its table: at least seconds of traffic (an allocation takes a send queue entry or
 * a read request), far beyond the longest a packet of the old op can still arrive (a give-up,
 * 72.2 ms, plus the read timeout, 78.6 ms, plus the switch's queues). docs/wire-protocol.md.
 */
#define NCP_ID_SHIFT 6u
/* The one encoding of ids: slot `idx` of generation `gen`, and back. */
static inline uint32_t ncp_id_make(uint32_t idx, uint32_t gen)
{
    return idx | gen << NCP_ID_SHIFT;
}
static inline uint32_t ncp_id_idx(uint32_t id)
{
    return id & ((1u << NCP_ID_SHIFT) - 1u);
}
/*
 * Cookies in the transport window: what to rebuild a packet from (no data kept). 64 bits: the full
 * op / response id in the high word (a resend whose slot was reused by another op finds another
 * id there and goes void: it never rebuilds another op's packet), kind and segment in the low.
 */
typedef xport_cookie_t ncp_cookie_t;
#define CK_KIND(c) ((uint32_t)(c) >> 29)
#define CK_ID(c) ((uint32_t)((c) >> 32))
#define CK_IDX(c) ncp_id_idx(CK_ID(c))
#define CK_SEG(c) ((uint32_t)(c) & 0xFFFFu)
#define CK_MAKE(k, id, s) ((uint64_t)(uint32_t)(id) << 32 | (uint32_t)(k) << 29 | (uint32_t)(s))
_Static_assert(NCP_OPS <= 64 && NCP_RESP <= 64, "id index is 6 bits");
enum { CK_WRITE = 1, CK_READREQ = 2, CK_READRESP = 3 };

struct ncp_peer {
    struct xport_peer x;
    uint32_t ack_val;      /* cumulative ACK we may advertise (data DMA'd to the host) */
    uint32_t w_nodes;      /* header word PKT_W_NODES of packets to this peer (set at boot) */
    uint32_t tx_token;     /* connection token we put on every packet to this peer */
    uint32_t rx_token;     /* the token every packet from this peer must carry */
    uint16_t rx_dma_pending;
    uint8_t rx_err;        /* RX_ERR_DMA: a receive DMA failed: ack_val stays before it until it is
                            * resent; RX_ERR_OOO: out-of-order packets' DMAs pending (rx.c) */
    uint8_t ack_early;     /* a receive DMA completed NCP_ACK_WAIT after the last ACK frame, others
                            * pending: an ACK of what is in host memory goes now (conn_flush_acks) */
    uint32_t ack_t;        /* when the last ACK frame went to this peer (conn_flush_acks) */
};

enum { RX_ERR_DMA = 1, RX_ERR_OOO = 2 };

/* ---- global state ---- */
struct ncp {
    uint16_t me, nodes;
    uint32_t w_loop; /* header word PKT_W_NODES of a frame to this node itself (loopback; conn_init) */
    uint8_t inited, shutdown;
    uint8_t pwords; /* pset_nwords(): the peer sets' words that cover [0, nodes) (ncp_set_nodes) */
    uint32_t now;
    struct ncp_fp fp[FP__N];
};

extern struct ncp ncp;

/* Every module's counters (loop.c); s and k zeroed first. */
void ncp_counters_gather(struct nic_stats *s, struct ncp_counters *k);
extern const struct xport_cfg ncp_xcfg;

/*
 * Work the event loop has to do besides the hardware sources (loop.c; docs/firmware.md "Event
 * loop"): a pass runs a state machine's poll only when there is something for it. (Deadlines
 * are the timer service's: timer.h.) The bitmaps are supersets: a bit is set where the work appears and cleared by the poll that
 * finds none left, so a poll visits only the entries that may have work (the others' polls would
 * change nothing):
 *   ep_ready     endpoints with send work: a doorbell rung, an entry being taken or segmented
 *   ep_parked    endpoints PARKED on a translation miss (served when a fill arrived)
 *   resp         read responses with segments still to send
 *   peer_tx      peers with packets in flight (una != nxt): the transport's timer source
 *   peer_rexmit  peers with resends to send (rexmit != nxt: set where a NACK, a timeout or an ACK
 *                leaves the cursor behind nxt; cleared by seg_resend_poll when none is left)
 *   peer_ack     peers that may owe an ACK now: a frame came from them, or their last
 *                receive DMA completed (an ACK waits for the data to be in host memory)
 * and flags: cmd (a command to take or in progress), misses_held (a miss event not yet posted),
 * resume (RESUME NACKs to send: a fill arrived while peers wait on a MISS NACK),
 * ops_waiting (endpoints whose next completion waits for a staging slot or DMA room: a bitmap,
 * ops_poll retries them).
 */
struct ncp_work {
    uint8_t cmd;
    uint8_t parked_wake; /* a fill arrived: the endpoints parked before it retry (once) */
    uint32_t ep_ready, ep_parked, resp;
    uint32_t ep_inline; /* resident endpoints whose next entry is an inline write: a hint (loop.c) */
    uint32_t peer_tx[NCP_PEER_WORDS], peer_rexmit[NCP_PEER_WORDS], peer_ack[NCP_PEER_WORDS]; /* peer sets */
    uint32_t ops_waiting;
    /* The flags of the rare polls at the end of a pass, in one word: the pass tests them (and
     * ops_waiting) with one load when none is set, as it is in a stream (issue 12: 5 tests per pass,
     * 2 passes per packet on a stream's receiver). */
    union {
        struct {
            uint8_t misses_held;
            uint8_t resume; /* a fill arrived while peers wait on a MISS NACK: rx_send_resumes */
            uint8_t evq;    /* event queues: interrupts or overflow reports wait for room (evq_poll) */
            uint8_t epc;    /* host endpoints: fills, evictions or fetches wait (epc_poll) */
        };
        uint32_t rare;
    };
    uint8_t epc_on; /* host endpoints configured (EP_TABLE): doorbells may be lost (epc_check_lost) */
    uint8_t db_fifo; /* a doorbell from the doorbell FIFO was taken: check its drop counter */
    uint8_t ack_in; /* a piggy-backed ACK deferred behind the data path (rx.c, rx_ack_idle) */
};
extern struct ncp_work ncp_work;

_Static_assert(NCP_EP_SLOTS <= 32 && NCP_EP_IDS % 32u == 0 && NCP_RESP <= 32 && NCP_MAX_PEERS <= 256, "struct ncp_work bitmaps, peer sets");

/* Word copy and word clear of a small structure (a multiple of 4 bytes, word-aligned) on a
 * per-operation path: inline loads and stores instead of a call to newlib's memcpy/memset. The
 * volatile accesses keep the compiler from turning the loops back into those calls. */
static inline void ncp_copy_words(void *d, const volatile void *s, uint32_t bytes)
{
    uint32_t *dw = (uint32_t *)d;
    const volatile uint32_t *sw = (const volatile uint32_t *)s;
#pragma GCC unroll 32
    for (uint32_t i = 0; i < bytes / 4u; i++)
        dw[i] = sw[i];
}
static inline void ncp_zero_words(void *d, uint32_t bytes)
{
    volatile uint32_t *dw = (volatile uint32_t *)d;
#pragma GCC unroll 32
    for (uint32_t i = 0; i < bytes / 4u; i++)
        dw[i] = 0;
}

/* Index of the lowest set bit of m != 0: Zbb's ctz (without Zbb: a de Bruijn multiply; gcc 12
 * recognises that table as ctz and, with Zbb, fails on it under link-time optimisation). */
static inline uint32_t ncp_lowest_bit(uint32_t m)
{
#ifdef __riscv_zbb
    return (uint32_t)__builtin_ctz(m);
#else
    static const uint8_t pos[32] = {0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
                                    31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9};
    return pos[((m & (0u - m)) * 0x077CB531u) >> 27];
#endif
}

/*
 * Peer sets: one bit per peer node in NCP_PEER_WORDS words (struct ncp_work, rx.c's resume set).
 * A loop over a set visits the words of this cluster's nodes (pset_nwords), each word's bits lowest
 * first; with up to 32 nodes a loop is over one word, as the bitmaps were.
 */
static inline void pset_add(uint32_t *s, uint32_t p)
{
    s[p >> 5] |= 1u << (p & 31u);
}
static inline uint32_t pset_has(const uint32_t *s, uint32_t p)
{
    return s[p >> 5] >> (p & 31u) & 1u;
}
static inline void pset_del(uint32_t *s, uint32_t p)
{
    s[p >> 5] &= ~(1u << (p & 31u));
}
/* The words of a peer set that cover this cluster's nodes [0, ncp.nodes): the loops' bound. Bits
 * of nodes beyond are never set (every pset_add is for a peer checked below ncp.nodes: a frame's
 * source by pkt_parse, an operation's node by sqe_validate). */
static inline uint32_t pset_nwords(void)
{
    return ncp.pwords; /* (ncp.nodes + 31) / 32, kept by ncp_set_nodes: two instructions less per set a pass asks */
}
static inline void ncp_set_nodes(uint16_t nodes)
{
    ncp.nodes = nodes;
    ncp.pwords = (uint8_t)((nodes + 31u) >> 5);
}
/* Any peer in the set: only this cluster's words are read (the event loop asks this of two sets
 * every pass: 8 words each would cost ~70 instructions a pass at 256 peers' worth of words). */
static inline uint32_t pset_any(const uint32_t *s)
{
    uint32_t a = s[0];
    for (uint32_t i = 1, n = pset_nwords(); i < n; i++)
        a |= s[i];
    return a;
}

/*
 * Development profiling of the fast path (off by default: configure with -DNCP_PROFILE=ON): checkpoint
 * k adds the cycles and instructions since the previous checkpoint to ncp_prof[k].
 */
#if NCP_PROFILE
extern uint32_t ncp_prof[16][3], ncp_prof_t, ncp_prof_i;
#define NCP_PROF_START() (ncp_prof_t = ncp_rdcycle(), ncp_prof_i = ncp_rdinstret())
#define NCP_PROF(k)                                                      \
    do {                                                                 \
        uint32_t t_ = ncp_rdcycle(), i_ = ncp_rdinstret();               \
        ncp_prof[k][0] += t_ - ncp_prof_t;                               \
        ncp_prof[k][1] += i_ - ncp_prof_i;                               \
        ncp_prof[k][2]++;                                                \
        ncp_prof_t = ncp_rdcycle();                                      \
        ncp_prof_i = ncp_rdinstret();                                    \
    } while (0)
#else
#define NCP_PROF_START() ((void)0)
#define NCP_PROF(k) ((void)0)
#endif

/*
 * The fast-path samples (struct ncp_fp) are benchmark instrumentation: compiled into the firmware
 * test images (their library is built with NCP_FP_SAMPLES=1), not into ncp.img, where fp_now() is 0
 * and fp_record nothing (issue 12: no benchmark code on the production image's per-packet path).
 */
#ifndef NCP_FP_SAMPLES
#define NCP_FP_SAMPLES 0
#endif
static inline uint32_t fp_now(void)
{
    return NCP_FP_SAMPLES ? ncp_rdcycle() : 0u;
}

static inline void fp_record(unsigned k, uint32_t cycles, uint32_t bytes)
{
    if (!NCP_FP_SAMPLES)
        return;
    struct ncp_fp *f = &ncp.fp[k];
    f->s[f->n % NCP_FP_RING] = (uint16_t)(cycles > 0xFFFFu ? 0xFFFFu : cycles);
    f->n++;
    f->sum += cycles;
    f->bytes += bytes;
    if (cycles > f->max)
        f->max = cycles;
}

/* Bytes of the segment at byte offset `off` of an operation of `total` bytes. */
static inline uint32_t seg_bytes(uint32_t total, uint32_t off)
{
    return total - off < NCP_MTU ? total - off : NCP_MTU;
}

/* Test hooks: weak in the NCP of the test images (NCP_TEST_HOOKS, the libraries ncp_core_fp and
 * ncp_core_bench; return 0: DMA the entry to the host as usual). Firmware test images that play
 * the host's part define them and return 1 to take the entry themselves.
 * NCP_TEST_HOOK on the weak definitions: never inlined nor analysed across files, so under
 * link-time optimisation the image's strong definition (in a non-LTO archive) still prevails;
 * without it the weak default was inlined and the test images' hosts never saw a completion.
 * In ncp.img (ncp_core) they are constant 0: a call in the middle of cqe_write made it save and
 * restore 11 registers per completion (issue 12). */
#ifndef NCP_TEST_HOOKS
#define NCP_TEST_HOOKS 0
#endif
#if defined(__clang__)
#define NCP_TEST_HOOK __attribute__((weak, noinline))
#else
#define NCP_TEST_HOOK __attribute__((weak, noipa))
#endif
#if NCP_TEST_HOOKS
int ncp_test_on_event(const struct nic_event *ev);
int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *cqe);
#else
static inline int ncp_test_on_event(const struct nic_event *ev)
{
    (void)ev;
    return 0;
}
static inline int ncp_test_on_cqe(uint8_t ep, const struct nic_cqe *cqe)
{
    (void)ep;
    (void)cqe;
    return 0;
}
#endif

#endif /* NCP_H */

