/*
 * nic_abi.h - the host/firmware interface: every structure the host driver, the user library and
 * the NCP exchange through NIC SRAM, host memory and doorbells. docs/host-interface.md explains
 * the protocol (who writes what, when, in which order); this header is the one definition of the
 * layouts. Addresses and sizes of the SRAM regions come from nic_memmap.h (linker/memmap.toml).
 *
 * Conventions: little-endian; every structure has a fixed size checked below; fields the reader
 * does not know must be zero; "phase" bits let a reader find new ring entries without an index
 * (the writer flips the bit it writes on every lap, starting at 1).
 *
 * Version: NIC_ABI_VERSION changes major on any incompatible layout change. The firmware puts it
 * in its info block; the driver refuses firmware with another major.
 */
#ifndef NIC_ABI_H
#define NIC_ABI_H

#include <stdint.h>

#include "nic_memmap.h" /* generated (linker/memmap.toml): the send queue window, doorbell pages */
#include "nic_regs.h"   /* generated (hal/regmap/nic.toml): the doorbell page layout dbpage */

#define NIC_ABI_VERSION_MAJOR 2u
#define NIC_ABI_VERSION_MINOR 4u /* 2.1: event queues (NIC_CMD_EQ_*, NIC_EV_EQ, struct nic_eqe);
                                  * 2.2 (issue 15 item 2, appended): host endpoints beyond the NIC's
                                  * resident ones: NIC_CMD_EP_TABLE, struct nic_ep_ctx, NIC_EPC_*,
                                  * nic_info.max_eps / ep_slots (were reserved[0]), nic_stats.ep_fills,
                                  * ep_evictions, ep_db_refused (were reserved[2..4]);
                                  * 2.2 also: message queues (issue 15 item 7): NIC_OP_POST_RECV, NIC_WR_SEND,
                                  * NIC_EQE_RECV, nic_eqe.status (was reserved1), NIC_ST_RNR / TOO_BIG,
                                  * nic_stats.mq_* (were reserved_xlate[2..4], the last three);
                                  * 2.2 also: peer contexts in host memory (NIC_CMD_PEER_TABLE, nic_info
                                  * peer_slots/peer_ctx_bytes (were reserved[1]), nic_stats peer_* in reserved_xport);
                                  * 2.3 (issue 15 item 4, appended): per-way access counts for the driver's
                                  * LFU victim choice: NIC_CMD_USAGE's d (was unused) = NIC_USAGE_COUNTS,
                                  * NIC_CAP_USAGE_COUNTS in nic_info.caps; 2.3 also: nic_stats.loop_holds,
                                  * loop_retries (were reserved[0..1]);
                                  * 2.4 (issue 12): inline writes: NIC_WR_INLINE, NIC_INLINE_MAX,
                                  * NIC_INLINE_WORD, NIC_CAP_INLINE in nic_info.caps */
#define NIC_ABI_VERSION ((NIC_ABI_VERSION_MAJOR << 16) | NIC_ABI_VERSION_MINOR)

/* ---- Firmware info block: at NIC_SRAM_QUEUES_BASE + hostif.fw_info, written at boot ---- */

#define NIC_INFO_MAGIC 0x4F464E49u /* "INFO" */

enum nic_cache_id {
    NIC_CACHE_VMH = 0, /* (pid, virtual page) -> physical page */
    NIC_CACHE_CBH = 1, /* (pid, buffer id) -> registered buffer */
    NIC_CACHE_PCH = 2, /* process handle -> process context */
    NIC_CACHE__COUNT
};

struct nic_cache_geom {
    uint32_t entries; /* C */
    uint16_t line;    /* L, entries per line: the fill unit */
    uint16_t ways;    /* A */
};

#define NIC_CAP_DYNAMIC_LOOKUP 0x1u /* caches with miss events and fills (else static tables) */
#define NIC_CAP_NACK 0x2u           /* translation-miss NACKs (else seed-faithful timeouts) */
#define NIC_CAP_USAGE_COUNTS 0x4u   /* ABI 2.3: NIC_CMD_USAGE with d = NIC_USAGE_COUNTS (access counts) */
#define NIC_CAP_INLINE 0x8u         /* ABI 2.4: send queue entries with NIC_WR_INLINE */

struct nic_info {
    uint32_t magic;
    uint32_t abi_version;    /* NIC_ABI_VERSION */
    uint32_t fw_version;     /* major [31:16], minor [15:0] */
    uint32_t caps;           /* NIC_CAP_* */
    uint32_t mtu;            /* largest payload per packet, bytes */
    uint16_t max_procs;      /* endpoints 1..max_procs-1 (0 is the driver) */
    uint16_t sq_entries;     /* per endpoint send queue */
    uint16_t cmd_entries;    /* command ring */
    uint16_t max_peers;      /* nodes */
    uint32_t cmd_ring;       /* SRAM byte offset of the command ring */
    uint32_t sq_base;        /* SRAM byte offset of endpoint 0's send queue (NIC_SRAM_SENDQ_OFFSET) */
    uint32_t sq_stride;      /* bytes between endpoints' send queues */
    struct nic_cache_geom cache[NIC_CACHE__COUNT];
    uint32_t lookup_bytes;   /* NIC memory used by the lookup structures */
    uint16_t max_eps;        /* ABI 2.2 (was reserved[0]): endpoint ids 1..max_eps-1; those from
                              * max_procs on are host endpoints (NIC_CMD_EP_TABLE); 0: none */
    uint16_t ep_slots;       /* ABI 2.2: host endpoint contexts the NIC caches at once */
    /* ABI 2.2, in what was reserved[1] (0 from an older NCP: every peer's context in NIC SRAM) */
    uint16_t peer_slots;     /* peer contexts resident in NIC SRAM; more peers need NIC_CMD_PEER_TABLE */
    uint16_t peer_ctx_bytes; /* bytes per peer context in the host table (power of two, <= a page) */
    uint32_t reserved[1];
};

/* ---- Commands: driver -> NCP. A ring of cmd_entries in SRAM written by the driver through the
 * BAR2 window; the driver then writes the new producer count to its doorbell page (page 0) at
 * NIC_DB_CMD_PI. Each command is answered by exactly one NIC_EV_CMD_DONE event carrying its
 * `seq`, in ring order. ---- */

enum nic_cmd_op {
    NIC_CMD_NOP = 0,
    NIC_CMD_INIT = 1,          /* a/b: event ring host PA; c: log2 entries; d: node id [15:0], nodes [31:16];
                                * key, pid | epoch << 16: the 64-bit fabric secret (ABI 2.0; 0: none);
                                * ep (unused by INIT before; issue 14): prefetch on a miss, the most VMH
                                * lines one miss request may cover (NIC_PREFETCH_MAX; 0: one line, the seed);
                                * cache (unused by INIT before; issue 14): transport options NIC_XOPT_*
                                * (0: none): bit 0 flow control (credits), bit 1 congestion control
                                * (ECN window), bit 2 selective repeat (else go-back-N);
                                * other bits: NIC_ST_BAD_CMD */
    NIC_CMD_EP_OPEN = 2,       /* ep, pid; a/b: completion queue host PA; c: log2 entries;
                                * d (ABI 2.1): event queue the endpoint reports to (0: none) */
    NIC_CMD_EP_CLOSE = 3,      /* ep: flush outstanding work with NIC_ST_FLUSHED, then answer */
    NIC_CMD_FILL = 4,          /* cache, pid, key (line number), epoch; a/b: host PA of the line;
                                * c: NIC_FILL_* flags (ABI 1.1) */
    NIC_CMD_INVALIDATE = 5,    /* cache, pid, key = first line, c = lines; answered when done */
    NIC_CMD_STATIC_LOAD = 6,   /* static build: cache, pid, key = line; a/b: host PA of the line */
    NIC_CMD_STATS = 7,         /* a/b: host PA to DMA the struct nic_stats into */
    NIC_CMD_SHUTDOWN = 8,      /* stop taking work; answered, then fw_state = shut down */
    /* ABI 2.1, appended: per-process event queues (docs/host-interface.md "Event queues") */
    NIC_CMD_EQ_OPEN = 9,       /* ep = event queue id (1..max_procs-1), pid; a/b: host PA of the queue's
                                * page; c: log2 entries (1..NIC_EQ_LOG2_MAX); d: NIC_EQF_* */
    NIC_CMD_EQ_CLOSE = 10,     /* ep = event queue id: no entry is written after the answer */
    NIC_CMD_EQ_ARM = 11,       /* ep = event queue id, pid; a: entries the process consumed. Interrupt
                                * (NIC_EV_EQ) at the next entry, at once if a != entries written;
                                * c = NIC_EQ_ARM_COUNT_ONLY: only the count (no interrupt) */
    NIC_CMD_USAGE = 13,        /* cache; a/b: host PA, c: bytes there: the cache's ways (struct
                                * nic_usage_way, set by set), as many as fit, for the driver's
                                * least-recently-used victim choice (seed 001); answered after the DMA.
                                * d (ABI 2.3, was unused: 0): NIC_USAGE_COUNTS: instead of the ways,
                                * one uint32_t per way in the same order, its hits since its line was
                                * filled (least-frequently-used); other bits NIC_ST_BAD_CMD */
    /* ABI 2.2, appended: the host table of peer contexts (docs/host-interface.md "Peer contexts") */
    NIC_CMD_PEER_TABLE = 14,   /* after INIT, before any traffic, when nodes > nic_info.peer_slots: one per
                               * page of the host table of peer contexts (peer_ctx_bytes each, page c holding
                               * peers c * (4096 / peer_ctx_bytes) on): c = page index, a/b = its host PA
                               * (4 KiB aligned, NIC-private: no process may map it); d: resident contexts
                               * to use, 1..peer_slots (0: all; fewer: a test setting). Each page once:
                               * the NCP evicts only when every page for `nodes` is known */
    NIC_CMD_EQ_POST = 12,      /* ep = event queue id, pid; key = NIC_EQE_* type the driver may post
                                * (NIC_EQE_UPCALL), a/b/c/d = the entry's a/b/c/d: the driver's own
                                * entry (an upcall); NO_RESOURCES: no room now */
    /* ABI 2.2, appended: host endpoints (docs/host-interface.md "Host endpoints") */
    NIC_CMD_EP_TABLE = 20,     /* key = page k of the endpoint context table (ids k * NIC_EPC_PER_PAGE
                                * ..+NIC_EPC_PER_PAGE-1); a/b: its host PA (kernel, pinned, page-aligned) */
};

struct nic_cmd {
    uint8_t op;       /* enum nic_cmd_op */
    uint8_t cache;    /* enum nic_cache_id, for FILL / INVALIDATE / STATIC_LOAD */
    uint16_t ep;      /* endpoint, for EP_OPEN / EP_CLOSE */
    uint32_t seq;     /* driver's sequence number, echoed in the CMD_DONE event */
    uint16_t pid;     /* process handle, for EP_OPEN and cache keys */
    uint16_t epoch;   /* FILL: the epoch of the miss event it answers */
    uint32_t key;     /* cache key: line number (VMH: vpn / L, CBH: buffer id / L, PCH: pid / L) */
    uint32_t a, b, c; /* operands, per op */
    uint32_t d;
};

/* Prefetch on a miss (issue 14, item 2): the largest INIT `ep` the NCP takes (larger: NIC_ST_BAD_CMD).
 * With N > 0 a VMH miss asks for up to N lines from the missed one to the end of its message
 * (nic_event.lines); the driver fills each of them, in order. */
#define NIC_PREFETCH_MAX 64u

/* FILL flags (nic_cmd.c). NIC_FILL_CURRENT: installed at the line's current epoch, not the epoch in
 * the command: a prefill the driver issues on its own (a process's PCH line at EP_OPEN, a buffer's
 * CBH line at registration), and since issue 18 the driver's answer to a miss too (a miss's epoch
 * went stale whenever the driver evicted another line of the same pid while the miss waited). Safe because the NCP runs commands in ring order and the driver builds the
 * image and queues the FILL under the lock that orders its INVALIDATEs: no invalidation of that
 * line can fall between the image and the fill. An NCP of ABI 1.0 ignores the flag and rejects
 * the fill (epoch 0 is stale after the registration's invalidation): only a missed prefill. */
#define NIC_FILL_CURRENT 0x1u

/* NIC_CMD_USAGE's records: one per way of the cache, sets in order, A ways each (the NCP's own
 * lookup cache layout, firmware/lib/lkc.h struct lkc_way, checked there). A way holds a line when
 * key has NIC_USAGE_VALID: pid = key & 0xFFFF, line = its line number; stamp = the cache's clock at
 * its last hit or fill (compare stamps of one answer as differences: they wrap). */
struct nic_usage_way {
    uint32_t tag;
    uint32_t key;
    uint32_t stamp;
    uint32_t line;
};
#define NIC_USAGE_VALID 0x10000u
#define NIC_USAGE_COUNTS 0x1u /* NIC_CMD_USAGE d (ABI 2.3): the ways' access counts (uint32_t each) */

/* INIT transport options (nic_cmd.cache of NIC_CMD_INIT; docs/wire-protocol.md "Flow and congestion
 * control"). */
#define NIC_XOPT_FLOW 0x1u       /* receiver credits: a receiver is never overrun by a sender */
#define NIC_XOPT_CONGESTION 0x2u /* ECN-marked frames echoed; an AIMD window per connection */
#define NIC_XOPT_SR 0x4u         /* selective repeat: receive out of order, SACK, resend only what is
                                  * missing (docs/wire-protocol.md "Selective repeat"); else go-back-N */

/* ---- Cache line images, in host memory, DMA'd by the NIC for FILL and STATIC_LOAD ---- */

#define NIC_ENTRY_VALID 0x1u /* the entry maps something; an invalid entry in a filled line means
                                "not registered": the NCP answers with a protection error, not
                                another miss */

struct nic_vmh_entry { /* one page */
    uint32_t ppn;      /* physical page number (4 KiB pages: 16 TiB reach) */
    uint32_t flags;    /* NIC_ENTRY_VALID | NIC_RIGHT_* the page may be used with */
};

#define NIC_RIGHT_LOCAL_READ 0x10u   /* the NIC may read it for a local send (RDMA write source) */
#define NIC_RIGHT_LOCAL_WRITE 0x20u  /* the NIC may write it for a local RDMA read destination */
#define NIC_RIGHT_REMOTE_WRITE 0x40u /* a remote RDMA write may target it */
#define NIC_RIGHT_REMOTE_READ 0x80u  /* a remote RDMA read may read it */
#define NIC_RIGHTS_ALL (NIC_RIGHT_LOCAL_READ | NIC_RIGHT_LOCAL_WRITE | NIC_RIGHT_REMOTE_WRITE | NIC_RIGHT_REMOTE_READ)

/* The VMH word: how the NCP keeps one struct nic_vmh_entry in its cache (one 32-bit word per page,
 * to fit the NIC memory budget): valid in bit 0, the NIC_RIGHT_* bits (7:4 of flags) in bits 4:1,
 * the physical page number in bits 31:5. A page whose number does not fit 27 bits (beyond 512 GiB)
 * or an entry without NIC_ENTRY_VALID packs to 0: not mapped. The one encoder and decoder, for the
 * NCP's cache fill and lookups and for every host-side model or test of them. */
#define NIC_VMH_W_VALID 0x1u
#define NIC_VMH_W_RIGHTS_SHIFT 3u /* NIC_RIGHT_* >> 3 */
#define NIC_VMH_W_PPN_SHIFT 5u
#define NIC_VMH_PPN_BITS 27u

static inline uint32_t nic_vmh_word(uint32_t ppn, uint32_t flags)
{
    if (!(flags & NIC_ENTRY_VALID) || ppn >> NIC_VMH_PPN_BITS)
        return 0u;
    return ppn << NIC_VMH_W_PPN_SHIFT | (flags & NIC_RIGHTS_ALL) >> NIC_VMH_W_RIGHTS_SHIFT | NIC_VMH_W_VALID;
}
static inline uint32_t nic_vmh_valid(uint32_t w)
{
    return w & NIC_VMH_W_VALID;
}
static inline uint32_t nic_vmh_rights(uint32_t w) /* NIC_RIGHT_* */
{
    return (w << NIC_VMH_W_RIGHTS_SHIFT) & NIC_RIGHTS_ALL;
}
/* Nonzero when the word maps its page with one of the rights in `right` (NIC_RIGHT_*). */
static inline uint32_t nic_vmh_allows(uint32_t w, uint32_t right)
{
    return (w & NIC_VMH_W_VALID) && ((w << NIC_VMH_W_RIGHTS_SHIFT) & right & NIC_RIGHTS_ALL);
}
static inline uint32_t nic_vmh_ppn(uint32_t w)
{
    return w >> NIC_VMH_W_PPN_SHIFT;
}
/* The physical address of `va` (its offset in the 4 KiB page) in the page the word maps. */
static inline uint64_t nic_vmh_pa(uint32_t w, uint64_t va)
{
    return (uint64_t)(w >> NIC_VMH_W_PPN_SHIFT) << 12 | (va & 0xFFFu);
}

struct nic_cbh_entry { /* one registered buffer */
    uint32_t flags;    /* NIC_ENTRY_VALID | NIC_RIGHT_* */
    uint32_t key;      /* remote access key; the initiator must present it */
    uint32_t va_lo, va_hi; /* base virtual address in the owner's space */
    uint32_t len_lo, len_hi;
    uint16_t owner_pid, reserved0;
    uint32_t reserved1;
};

struct nic_pch_entry { /* one process */
    uint32_t flags;    /* NIC_ENTRY_VALID */
    uint16_t ep;       /* its endpoint (send queue, completion queue) */
    uint16_t reserved0;
};

/* ---- Host endpoints (ABI 2.2): endpoint ids max_procs..max_eps-1. Their contexts live in the
 * driver's table in host memory (NIC_CMD_EP_TABLE pages); the NCP caches ep_slots of them, fetched
 * by DMA when the endpoint rings, written back (cq_n, sq_n) when evicted. Their send queue is a
 * page of the process's memory (pinned by the driver): sq_entries entries from offset 0, and at
 * NIC_EPC_DBREC the doorbell record, the producer count the library writes before it rings
 * (read by the NCP at a fill and after lost doorbells). ---- */
#define NIC_EPC_VALID 0x1u      /* flags: the endpoint is open (set before EP_OPEN, cleared before EP_CLOSE) */
#define NIC_EPC_PER_PAGE 128u   /* contexts per table page */
#define NIC_EPC_DBREC 2048u     /* byte offset of the doorbell record in the send queue page */

struct nic_ep_ctx {
    uint32_t flags;        /* NIC_EPC_VALID (driver) */
    uint16_t pid;          /* owner */
    uint8_t cq_log2;       /* completion queue entries, log2 */
    uint8_t eq;            /* event queue its completions are reported to (0: none) */
    uint32_t cq_lo, cq_hi; /* completion queue host PA */
    uint32_t sq_lo, sq_hi; /* send queue page host PA */
    uint32_t cq_n;         /* NCP (written back at eviction; 0 at open): completions produced */
    uint32_t sq_n;         /* NCP (idem): requests retired, all of them taken and rung */
};

/* ---- Events: NCP -> driver, a ring in host memory (INIT), written by NIC DMA. The NCP raises
 * hostif.irq_raise.miss for MISS events and .cmpl for the others. The driver publishes how far
 * it has read by writing its consumer count to doorbell page 0 at NIC_DB_EV_CI; the NCP never
 * overwrites unread entries (when the ring is full it holds events back and counts it). ---- */

enum nic_ev_type {
    NIC_EV_CMD_DONE = 1, /* a: command seq, status: enum nic_status */
    NIC_EV_MISS = 2,     /* cache, pid, key (line), epoch, path (NIC_PATH_*); lines (issue 14): the
                          * request covers lines key .. key + lines - 1 (0 or 1: the line key only) */
    NIC_EV_FATAL = 3,    /* status, a: detail */
    NIC_EV_EQ = 4,       /* ABI 2.1: an armed event queue got an entry: pid, a = event queue id */
};

#define NIC_PATH_SEND 0u
#define NIC_PATH_RECV 1u

/* 32 bytes (ABI 2.0; 24 before): a power of two, so an entry of a ring that starts on a 32-byte
 * boundary never straddles a 256-byte DMA burst boundary and is written by one burst. A 24-byte
 * entry across such a boundary was written in two bursts, and the driver could see the new phase
 * of the first with the stale sequence number of the second (issue 18, 8a). */
struct nic_event {
    uint8_t type;        /* enum nic_ev_type */
    uint8_t cache;
    uint8_t path;
    uint8_t phase;       /* bit 0: flips every lap, starts at 1 */
    uint16_t pid;
    uint16_t epoch;
    uint32_t key;
    int32_t status;      /* enum nic_status */
    uint32_t a;
    uint32_t lines;      /* NIC_EV_MISS (issue 14, in what was reserved[0]): lines the request covers
                          * from key on (prefetch on a miss); 0 from an NCP that does not know it */
    uint32_t reserved[2];
};

/* ---- Send queue: per endpoint, in NIC SRAM at sq_base + ep * sq_stride, written by the user
 * library through its doorbell page (offsets below NIC_DB_SQ_BYTES map onto its send queue);
 * then the new producer count goes to the same page at NIC_DB_SQ_PI. ---- */

enum nic_wr_op {
    NIC_OP_RDMA_WRITE = 1, /* local [laddr, +len) -> remote buffer (rbuf, roff) on rnode */
    NIC_OP_RDMA_READ = 2,  /* remote buffer (rbuf, roff) on rnode -> local [laddr, +len) */
    NIC_OP_POST_RECV = 3,  /* ABI 2.2: post [laddr, +len) of lbuf (local-write right) as a receive buffer
                            * of this node's message queue rbuf (1..NIC_MQ_QUEUES-1) with key rkey:
                            * the first post claims a free queue for the process (and its endpoint,
                            * until it closes), later ones must name the same key; rnode = this
                            * node, roff = rpid = 0. Completes at once: NIC_ST_OK (posted),
                            * NIC_ST_BAD_HANDLE (no such queue id, or the process has no
                            * NIC_EQF_NOTIFY event queue), NIC_ST_KEY (the queue is another process's
                            * or has another key), NIC_ST_NO_RESOURCES (NIC_MQ_DEPTH buffers posted
                            * and not yet used), NIC_ST_BOUNDS (an offset beyond 4 GiB in lbuf) */
    NIC_OP_SEND = 4,       /* ABI 2.2: never in a send queue entry (a send is NIC_OP_RDMA_WRITE with
                            * NIC_WR_SEND): the op the user library reports a send's completion with */
};

#define NIC_WR_SIGNALED 0x1u /* post a completion on success (errors are always posted) */

struct nic_sq_entry {
    uint8_t op;                  /* enum nic_wr_op */
    uint8_t flags;               /* NIC_WR_* */
    uint16_t rnode;              /* remote node id */
    uint32_t len;                /* bytes, 1..NIC_MAX_XFER */
    uint32_t laddr_lo, laddr_hi; /* local virtual address in the posting process */
    uint32_t rbuf;               /* remote buffer id (with rpid: the remote CBH) */
    uint16_t rpid;               /* remote process handle */
    uint16_t reserved0;
    uint32_t roff_lo, roff_hi;   /* offset in the remote buffer */
    uint32_t rkey;               /* the remote buffer's key */
    uint32_t wr_id_lo, wr_id_hi; /* caller's id, returned in the completion */
    uint32_t lbuf;               /* ABI 2.0: the posting process's registered buffer (handle) that
                                  * holds [laddr, +len): the NCP checks the range, the owner and the
                                  * local right against its CBH entry before any DMA */
    uint32_t reserved1[4];       /* zero */
};

#define NIC_MAX_XFER (1u << 24) /* 16 MiB per work request */

/* ABI 2.4: an inline write (NIC_CAP_INLINE). An RDMA write entry (a send too, NIC_WR_SEND; with or
 * without NIC_WR_IMM) with NIC_WR_INLINE carries its data in the entry itself: len <=
 * NIC_INLINE_MAX bytes, packed into the entry's 32-bit words NIC_INLINE_WORD(0), (1), ... in that
 * order (within a word the bytes in memory order: the word's low byte first; nic_sqe_inline_pack).
 * Those words are laddr_lo, laddr_hi, lbuf and reserved1[1..3]: laddr and lbuf are not an address
 * and a buffer then, and the NCP reads no local memory for the request (words past len are
 * ignored). The
 * NCP sends the bytes from its copy of the send queue slot, which stays the process's until the
 * request retires (a completion's sq_ci passes it): a retransmission reads them there again, so
 * a process that rewrites the slot before then changes only its own message. */
#define NIC_WR_INLINE 0x8u
#define NIC_INLINE_MAX 24u
#define NIC_INLINE_WORD(i) ((i) < 2u ? 2u + (i) : (i) == 2u ? 11u : 10u + (i)) /* i < NIC_INLINE_MAX / 4 */

/* ABI 2.4: the first len (<= NIC_INLINE_MAX) bytes of data into an inline entry's data words
 * (NIC_INLINE_WORD order, little-endian: byte i in word i / 4 at bits 8 * (i % 4)); the words past
 * them zero. The caller sets NIC_WR_INLINE. */
static inline void nic_sqe_inline_pack(struct nic_sq_entry *e, const uint8_t *data, uint32_t len)
{
    uint32_t w[NIC_INLINE_MAX / 4u] = {0, 0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < len && i < NIC_INLINE_MAX; i++)
        w[i / 4u] |= (uint32_t)data[i] << (8u * (i % 4u));
    e->laddr_lo = w[0];
    e->laddr_hi = w[1];
    e->lbuf = w[2];
    e->reserved1[1] = w[3];
    e->reserved1[2] = w[4];
    e->reserved1[3] = w[5];
}

/* ABI 2.1: an RDMA write with immediate data (target-side notification). The entry's
 * reserved1[0] carries the immediate (16 bits: its upper half must be 0); the write's last segment
 * carries it (docs/wire-protocol.md, PKT_F_IMM). When that segment's data is in the target's
 * memory (and so every earlier one's: segments are accepted and written in order), the target NCP
 * writes one NIC_EQE_IMM entry into the event queue of the target process opened with
 * NIC_EQF_NOTIFY (none: counted in imm_no_eq, nothing posted). Only for RDMA writes. */
#define NIC_WR_IMM 0x2u
#define NIC_IMM_MAX 0xFFFFu

/* ABI 2.2: a two-sided send (message queues; docs/wire-protocol.md "Message queues"). An RDMA write
 * entry with NIC_WR_SEND carries a message of len <= NIC_MSG_MAX bytes (and <= the MTU: one segment)
 * to message queue rbuf of node rnode, presenting the queue's key in rkey (roff = rpid = 0, no
 * NIC_WR_IMM). The target NCP places it into the queue's oldest posted buffer and reports it in the
 * owner's NIC_EQF_NOTIFY event queue (NIC_EQE_RECV); the send completes NIC_ST_OK only when the
 * bytes are in that buffer. No buffer posted: the target answers BUSY (retried every 20 us) up to
 * NIC_MQ_RNR_TRIES times, then the send fails NIC_ST_RNR. A message longer than the buffer:
 * NIC_ST_TOO_BIG (and a NIC_EQE_RECV with that status at the target; nothing written, the buffer
 * stays posted). Unknown queue: NIC_ST_BAD_HANDLE; wrong key: NIC_ST_KEY. */
#define NIC_WR_SEND 0x4u
#define NIC_MSG_MAX 4096u    /* largest message (also limited to the NCP's MTU) */
#define NIC_MQ_QUEUES 8u     /* queue ids 1..7 per node */
#define NIC_MQ_DEPTH 8u      /* posted buffers per queue */
#define NIC_MQ_RNR_TRIES 32u /* BUSY answers to one send before NIC_ST_RNR (about 0.7 ms) */

/* ---- Completion queue: per endpoint, in host memory (EP_OPEN), written by NIC DMA ---- */

enum nic_status {
    NIC_ST_OK = 0,
    NIC_ST_BAD_DESC = -1,     /* malformed send queue entry (op, length, flags) */
    NIC_ST_BAD_HANDLE = -2,   /* local address not registered / remote buffer unknown */
    NIC_ST_BOUNDS = -3,       /* outside the buffer */
    NIC_ST_RIGHTS = -4,       /* buffer lacks the access right */
    NIC_ST_KEY = -5,          /* wrong remote key */
    NIC_ST_UNREACHABLE = -6,  /* peer did not answer within the retry limit */
    NIC_ST_FLUSHED = -7,      /* endpoint closed with the request outstanding */
    NIC_ST_HOST_ERROR = -8,   /* host DMA error */
    NIC_ST_NO_RESOURCES = -9, /* a bounded table was full (command answers) */
    NIC_ST_BAD_CMD = -10,     /* malformed command */
    NIC_ST_BUSY = -11,        /* ABI 2.0, EP_CLOSE answer: closed, but packets of the endpoint are
                               * still in flight; ask again (same command) until NIC_ST_OK */
    NIC_ST_RNR = -12,         /* ABI 2.2, send: the target queue had no posted buffer through every retry */
    NIC_ST_TOO_BIG = -13,     /* ABI 2.2, send: the message is longer than the target's posted buffer */
};

struct nic_cqe {
    uint32_t wr_id_lo, wr_id_hi;
    int32_t status; /* enum nic_status */
    uint32_t bytes; /* transferred */
    uint8_t op;     /* enum nic_wr_op */
    uint8_t phase;  /* bit 0: flips every lap, starts at 1 */
    uint16_t sq_ci; /* requests retired after this one (low 16 bits): slots below it are free */
    uint32_t req;   /* ABI 2.0: which request: its index in the send queue's stream (the producer
                     * count before it was posted). Requests retire in order, so sq_ci == req + 1. */
    uint32_t reserved1[2];
};

/* ---- Event queues (ABI 2.1): per process, one page of host memory (the process's, pinned by the
 * driver), EQ_OPEN. 2^c entries written by NIC DMA with a phase bit as the completion queue. The
 * NCP learns how many the process consumed from EQ_ARM (a): an entry that finds no room by the
 * last count is lost, counted, and reported by one NIC_EQE_OVERFLOW entry (a = how many) as soon as
 * a count makes room for it. One slot stays free for that report. ---- */

#define NIC_EQ_LOG2_MAX 7u        /* at most 128 entries: one page */
#define NIC_EQF_NOTIFY 0x1u       /* EQ_OPEN d: target-side notifications of this pid go here */
#define NIC_EQ_ARM_COUNT_ONLY 1u  /* EQ_ARM c: the consumer count only, no interrupt */

enum nic_eqe_type {
    NIC_EQE_CQ = 1,       /* endpoint `ep` wrote completion queue entry `a` (its count - 1):
                           * read its completion queue (entries are hints: a reader that reads the
                           * queue up to its phase boundary has seen this one too) */
    NIC_EQE_OVERFLOW = 2, /* a entries were lost for want of room (read every endpoint's queue) */
    NIC_EQE_IMM = 3,      /* a write with immediate landed: a = imm, b = its length, c = target
                           * buffer id, d = offset (low 32 bits) in it where it began, ep = source
                           * node (the wire does not name the writing process: pid 0) */
    NIC_EQE_UPCALL = 4,   /* posted by the driver (EQ_POST): it must take back the pinned pages
                           * [b | c << 32, + d pages) of the process; a = token to answer with
                           * (nicdrv_upcall_done) within the driver's grace period */
    NIC_EQE_RECV = 5,     /* ABI 2.2: a message for queue a landed (status NIC_ST_OK: b bytes in the
                           * posted buffer c at offset d) or did not: status NIC_ST_TOO_BIG (b = the
                           * message's length; nothing written, the buffer stays posted) or
                           * NIC_ST_HOST_ERROR (the buffer is used up, the message is placed again
                           * in the next one); ep = source node, pid = source process */
};

struct nic_eqe {
    uint8_t type;   /* enum nic_eqe_type */
    uint8_t phase;  /* bit 0: flips every lap, starts at 1 */
    uint16_t ep;    /* NIC_EQE_CQ: the endpoint; NIC_EQE_IMM: the source node */
    uint16_t pid;   /* NIC_EQE_IMM: the source process */
    uint16_t reserved0;
    uint32_t a, b, c, d;
    uint32_t seq;   /* the entry's index in the queue's stream */
    int32_t status; /* ABI 2.2 (was reserved1): NIC_EQE_RECV's enum nic_status; 0 otherwise */
};

/* ---- Doorbell pages (BAR4, NIC_BAR_DOORBELL_PAGE bytes each, page = endpoint; page 0 = the
 * driver; ABI 2.2: pages max_procs.. are host endpoints', whose send queue is in host memory: only
 * NIC_DB_SQ_PI is used there, its value a hint, the count read from the doorbell record). The values come from the map (linker/memmap.toml, hal/regmap/nic.toml layout dbpage):
 * these are the ABI's names for them. ---- */

#define NIC_DB_PAGE NIC_BAR_DOORBELL_PAGE  /* bytes per doorbell page: page p at BAR4 + p * NIC_DB_PAGE */
#define NIC_DB_SQ_BYTES NIC_SENDQ_STRIDE   /* [0, NIC_DB_SQ_BYTES): the endpoint's send queue */
#define NIC_DB_SQ_PI NIC_DBPAGE_SQ_PI      /* write: send queue producer count (endpoints) */
#define NIC_DB_CMD_PI NIC_DBPAGE_CMD_PI    /* write: command ring producer count (page 0 only) */
#define NIC_DB_EV_CI NIC_DBPAGE_EV_CI      /* write: event ring consumer count (page 0 only) */

/* ---- Statistics (NIC_CMD_STATS), DMA'd to host memory ---- */

struct nic_cache_stats {
    uint32_t lookups, hits;
    uint32_t miss_cold_send, miss_cold_recv, miss_send, miss_recv; /* cold = first touch of the line */
    uint32_t evictions, invalidations, fills, fills_rejected;
};

struct nic_stats {
    struct nic_cache_stats cache[NIC_CACHE__COUNT];
    uint32_t tx_packets, rx_packets, retransmits, timeouts;
    uint32_t nacks_sent, nacks_received, drops_miss, drops_bad;
    uint32_t protection_errors, dup_packets, events_held, doorbell_bad;
    uint32_t nacks_stale; /* ABI 1.1: refusal NACKs for no packet in flight of that op (ignored) */
    /* ABI 2.0: the counters below are zero from an NCP that does not know them. */
    /* transport and wire security (docs/wire-protocol.md "Counters"): */
    uint32_t auth_drops;    /* frames dropped: wrong connection token for their source (forged) */
    uint32_t stale_resps;   /* READ_RESPs for no live read (flushed, failed, timed out) or not
                             * matching it (peer, offset, length): data discarded */
    uint32_t refused_ops;   /* our operations failed by a PROTECTION/MALFORMED NACK (once per op) */
    uint32_t local_denied;  /* local pages unusable for a packet: a read response's pages at the
                             * responder, a resend's source, a response's destination */
    uint32_t nacks_ignored; /* MISS/BUSY/RESUME NACKs about nothing in flight or held */
    uint32_t stall_giveups; /* give-ups on the no-progress bound (whatever NACKs came) */
    uint32_t resyncs_bad;   /* RESYNC flags that would move a connection backward: ignored */
    uint32_t rx_dma_errors; /* received data whose host DMA failed: not acknowledged, resent */
    uint32_t void_fails;    /* operations failed because a segment went VOID (no data) */
    uint32_t ce_received;   /* sequenced packets received with the switch's congestion mark (CE) */
    uint32_t cc_cuts;       /* congestion window cuts on an echoed mark (ECE) */
    /* peer contexts (ABI 2.2, in what was reserved_xport[0..4]; docs/firmware.md "Peer contexts") */
    uint32_t peer_fills;      /* contexts filled from the host table (a peer not resident was needed) */
    uint32_t peer_evictions;  /* resident contexts chosen as victims (quiet peers only) */
    uint32_t peer_writebacks; /* victims' contexts written back to the host table */
    uint32_t peer_fill_drops; /* frames dropped because their source's context was being filled */
    uint32_t peer_no_victim;  /* a context was needed, no slot free and no resident peer quiet: the
                               * frame dropped (its sender resends) or the send retried later */
    /* translation liveness (issue 18) */
    uint32_t miss_requests;      /* miss requests recorded (one per (cache, pid, line) outstanding) */
    uint32_t miss_reposts;       /* posted misses the host did not answer within 10 ms, posted again */
    uint32_t miss_table_full;    /* misses not recorded, the table full (packet dropped / request parked) */
    /* prefetch on a miss (issue 14, in what was reserved_xlate[0..1]) */
    uint32_t miss_prefetch_lines; /* lines miss requests asked for beyond the missed line */
    uint32_t miss_range_merged;   /* misses that fell into an outstanding request's prefetched lines */
    /* message queues (ABI 2.2, in what were reserved_xlate[2..4], the last three) */
    uint32_t mq_placed;          /* messages placed into posted buffers (reported NIC_EQE_RECV) */
    uint32_t mq_rnr_nacks;       /* sends answered BUSY: their queue had no posted buffer */
    uint32_t mq_refused;         /* sends refused: unknown queue, wrong key, too long, NIC_ST_RNR */
    /* host interface (ABI 2.0) */
    uint32_t local_refused;      /* requests whose local range failed the NCP's check (lbuf) */
    uint32_t close_busy;         /* EP_CLOSE answered NIC_ST_BUSY: the endpoint's packets in flight */
    uint32_t retire_waits;       /* finished requests that waited for an earlier one to retire */
    uint32_t db_dropped;         /* doorbell writes the hardware dropped (doorbell.status.overflow:
                                  * only writes at offsets no doorbell register has) */
    uint32_t db_coalesced;       /* doorbell writes that replaced a count not yet taken (not a loss) */
    /* event queues (ABI 2.1, in what were reserved words) */
    uint32_t eq_entries;         /* entries written into event queues */
    uint32_t eq_lost;            /* entries lost: the queue had no room (reported by NIC_EQE_OVERFLOW) */
    uint32_t eq_irqs;            /* NIC_EV_EQ events raised for armed queues */
    uint32_t imm_no_eq;          /* writes with immediate whose target process has no NIC_EQF_NOTIFY queue */
    uint32_t loop_frames;        /* (ABI 2.1, in a reserved word; issue 15) frames to this node itself:
                                  * handled by its own RX path, not sent (loopback) */
    /* loopback under a small pin budget (ABI 2.3, in what were reserved[0..1]; docs/firmware.md
     * "Loopback under a small pin budget") */
    uint32_t loop_holds;         /* loopback frames held in their loop entry on a destination miss */
    uint32_t loop_retries;       /* held loopback frames handled again (after a fill, or its timer) */
    /* host endpoints (ABI 2.2, in what were reserved[2..4]) */
    uint32_t ep_fills;           /* host endpoint contexts fetched into the NIC's cache */
    uint32_t ep_evictions;       /* idle host endpoint contexts written back to make room */
    uint32_t ep_db_refused;      /* doorbells refused: no such endpoint, a closed one, a bad count */
};

/* Layout checks: both sides compile this header, so a mismatch fails the build on either. */
#define NIC_ABI_ASSERT_SIZE(t, n) _Static_assert(sizeof(t) == (n), #t " must be " #n " bytes")
NIC_ABI_ASSERT_SIZE(struct nic_cache_geom, 8);
NIC_ABI_ASSERT_SIZE(struct nic_info, 80);
NIC_ABI_ASSERT_SIZE(struct nic_cmd, 32);
NIC_ABI_ASSERT_SIZE(struct nic_vmh_entry, 8);
NIC_ABI_ASSERT_SIZE(struct nic_cbh_entry, 32);
NIC_ABI_ASSERT_SIZE(struct nic_pch_entry, 8);
NIC_ABI_ASSERT_SIZE(struct nic_event, 32);
NIC_ABI_ASSERT_SIZE(struct nic_sq_entry, 64);
NIC_ABI_ASSERT_SIZE(struct nic_cqe, 32);
NIC_ABI_ASSERT_SIZE(struct nic_eqe, 32);
NIC_ABI_ASSERT_SIZE(struct nic_usage_way, 16);
NIC_ABI_ASSERT_SIZE(struct nic_ep_ctx, 32);
NIC_ABI_ASSERT_SIZE(struct nic_stats, 328);

#endif /* NIC_ABI_H */
