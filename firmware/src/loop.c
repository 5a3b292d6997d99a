/*
 * loop.c - boot and the run-to-completion event loop.
 *
 * Interrupts never trap: the core runs with mstatus.MIE = 0 and wakes from wfi on an enabled
 * pending intc source (DMA completion, frame received, frame sent, doorbell, host) or the timer.
 * The "top half" is hal_take_events(), which acknowledges the intc; the bottom halves are the
 * poll functions of each state machine, each bounded per pass. When a pass finds nothing to do
 * and nothing new is pending, the core sleeps.
 *
 * A pass pays only for work that exists (docs/firmware.md "Event loop"): the hardware sources (DMA
 * completions, doorbells, RX frames, frames sent) are polled only when their intc event is pending
 * - the intc latches every event, acknowledged at the start of the pass before the sources are
 * read, so an event that arrives during a pass makes the next one poll; a poll that leaves work
 * behind (budget) raises its event again. Software work is found through struct ncp_work.
 */
#include <string.h>

#include "cmd.h"
#include "completer.h"
#include "congestion.h"
#include "conn.h"
#include "dmaq.h"
#include "epc.h"
#include "evq.h"
#include "mq.h"
#include "loop.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "ops.h"
#include "requester.h"
#include "responder.h"
#include "rx.h"
#include "segment.h"
#include "timer.h"
#include "tx.h"
#include "xlate.h"

struct ncp ncp;
struct ncp_work ncp_work;
#if NCP_PROFILE
uint32_t ncp_prof[16][3], ncp_prof_t, ncp_prof_i;
#endif

void ncp_on_assert(unsigned module, unsigned id)
{
    ncp_console_puts("ncp: assertion ");
    ncp_console_dec(module);
    ncp_console_puts(".");
    ncp_console_dec(id);
    ncp_console_puts(" failed\n");
    ncp_fatal("internal assertion", module << 8 | id);
}

#if NCP_TRACE_STATES
void ncp_trace_state(const char *what, uint32_t idx, const char *from, const char *to)
{
    ncp_console_puts("ncp: ");
    ncp_console_puts(what);
    ncp_console_puts(" ");
    ncp_console_dec(idx);
    ncp_console_puts(" ");
    ncp_console_puts(from);
    ncp_console_puts(" -> ");
    ncp_console_puts(to);
    ncp_console_puts("\n");
}
#endif

void ncp_counters_gather(struct nic_stats *s, struct ncp_counters *k)
{
    memset(s, 0, sizeof *s);
    memset(k, 0, sizeof *k);
    cc_counters(s, k);
    cmd_counters(s, k);
    cpl_counters(s, k);
    conn_counters(s, k);
    dmaq_counters(s, k);
    if (epc_counters)
        epc_counters(s, k);
    ops_counters(s, k);
    evq_counters(s, k);
    mq_counters(s, k);
    req_counters(s, k);
    rsp_counters(s, k);
    rx_counters(s, k);
    seg_counters(s, k);
    tx_counters(s, k);
    xlate_counters(s, k);
    xlate_stats(s->cache);
    xlate_miss_stats(s);
    hal_db_counts(&s->db_dropped, &s->db_coalesced);
}

void ncp_boot(void)
{
    int bad = hal_check_blocks();

    if (bad >= 0)
        ncp_fatal("register block id/version mismatch", (uint32_t)bad);
    memset(&ncp, 0, sizeof ncp);
    memset(&ncp_work, 0, sizeof ncp_work);
    ncp.me = hal_node_id();
    ncp_set_nodes(NCP_MAX_PEERS); /* until INIT says how many */
    ncp_secure((const uint32_t[4]){0, 0, 0, 0}); /* connections; INIT gives the fabric secret */
    cc_setup(0);                                 /* flow/congestion control off until INIT asks */
    xlate_init();
    tx_init();
    rx_init();
    cmd_init();
    evq_init();
    mq_init();
    req_init();
    if (epc_init)
        epc_init();
    ops_init();
    resp_init();
    hal_init(HAL_EV_ALL);
    hal_raise_events(HAL_EV_ALL); /* the first pass polls every source */
    hal_fw_state(NIC_HOSTIF_FW_STATE_STATE_READY);
}

static void doorbells(void)
{
    uint32_t page, off, data;

    for (uint32_t budget = 0; hal_db_pop(&page, &off, &data);) {
        if (page == 0)
            cmd_on_doorbell(off, data);
        else
            req_on_doorbell(page, off, data);
        if (++budget == 32) {
            hal_raise_events(HAL_EV_DOORBELL); /* more may wait: the next pass pops them */
            break;
        }
    }
    /* Host endpoints' doorbells go through the FIFO, which may drop: when it dropped, it was full,
     * and taking any of its entries (every one lands in a rare path that sets db_fifo) is followed
     * by a look at the drop counter. The resident endpoints' doorbells never set it. */
    if (ncp_work.db_fifo) {
        ncp_work.db_fifo = 0;
        if (ncp_work.epc_on)
            epc_check_lost();
    }
}

/*
 * A doorbell and DMA completions in the same pass (in a ping-pong: the host answering the data
 * just placed): when the next entry is an inline write, its frame goes first, straight to the
 * MAC, ahead of the completions' bookkeeping (~150 cycles; issue 12: 8 B one-way 7.45 -> 6.85 us).
 * Any other entry waits for the completions as before: its frame waits on its payload's DMA, and
 * the ACK frame the early send would leave owed goes ahead of a data frame (64 B one-way was
 * 0.5 us longer that way). Out of line: the stream's passes pay one branch.
 */
static __attribute__((noinline, cold)) void doorbells_inline_first(void)
{
    doorbells();
    if (ncp_work.ep_inline) /* (req_on_doorbell: an idle endpoint's next entry is inline) */
        req_poll();
}

/*
 * A TX event (the MAC finished frames) needs tx_reap unless only control frames went and half the
 * control frames are still free: then nothing waits to be fed (every frame in MAC order submitted),
 * no data frame waits to be freed, and the finished control frames (the MAC's control queue) are
 * collected by the next TX event that finds the pool's upper half in use (the lowest free frame is
 * taken first, so the upper half is in use only when the lower one is), or by tx_ack_fast and
 * tx_ctl (ctl_alloc) when the pool is empty.
 * An ACK-heavy receiver (an 8-to-1 incast's: 0.64 ACK frames per packet) paid tx_collect and the
 * feed's look for each of its ACK frames (issue 12).
 */
#define CTL_HALF ((1u << (NCP_CTL_N / 2u)) - 1u)
static inline int tx_reap_due(void)
{
    return txs.sub != txs.ready || txs.free != (1u << NCP_TX_N) - 1u || txs.nloop ||
           (txs.ctl_free >> (NCP_CTL_N / 2u)) != CTL_HALF;
}

/* One pass (inlined into both loops below). */
static inline __attribute__((always_inline)) void ncp_pass(void)
{
    const struct ncp_work *w = &ncp_work;
    uint32_t ev = hal_take_events();

    ncp.now = hal_now();
    if (ev & HAL_EV_DMA) {
        if (__builtin_expect((ev & HAL_EV_DOORBELL) != 0, 0)) {
            doorbells_inline_first();
            ev &= ~HAL_EV_DOORBELL; /* (what rings meanwhile raises the event again) */
        }
        dmaq_complete();
    }
    if (ev & HAL_EV_DOORBELL)
        doorbells();
    if (ev & HAL_EV_RX)
        rx_poll();
    if (w->cmd)
        cmd_poll();
    if (timer_due())
        timer_poll();
    if ((ev & HAL_EV_TX) && tx_reap_due())
        tx_reap(); /* frames the MAC finished: free them, feed the MAC */
    /* new packets after resends (they hold the window): responses, then endpoints */
    if (pset_any(w->peer_rexmit))
        seg_resend_poll();
    if (w->resp)
        resp_poll();
    if (w->ep_ready | (ncp_work.parked_wake ? w->ep_parked : 0u))
        req_poll();
    ncp_work.parked_wake = 0; /* a fill wakes the endpoints parked before it, once */
    if (pset_any(w->peer_ack)) {
        /* A doorbell rung during this pass (a host answering the data just placed) is served
         * before the ACKs are flushed when the host DMA is idle: its packet goes first and
         * carries the ACK, where a stand-alone ACK frame would go ahead of it (issue 12). The
         * DMA completions first (at most one outstanding: the placement the host saw), so that
         * the ACK it carries covers that data (rx_dma_done: ack_val). Not while other DMAs are
         * outstanding: the ACK would wait on the frame behind them, where an ACK frame goes
         * ahead of waiting data (tx_ctl; "Timeouts measure the network",
         * system.loopback_nofast); nor is the intc read then (a stream's passes). Nor with flow or
         * congestion control on (cc_opts), as the deferral of piggy-backed ACKs (rx.c): the ACK
         * frames then carry the credits and echoes every sender to this node waits on, and the
         * extra intc read per pass cost an 8-to-1 incast's receiver (nicsim.incast_flow's run:
         * goodput 53.0 % of the link without it, 51.0 % with it). */
        uint32_t p;
        if (!cc_opts && dmaq.head - dmaq.done <= 1u && ((p = hal_events_pending()) & HAL_EV_DOORBELL)) {
            if (p & HAL_EV_DMA) {
                hal_ack_events(HAL_EV_DMA);
                dmaq_complete();
            }
            if (dmaq_idle()) {
                hal_ack_events(HAL_EV_DOORBELL);
                doorbells();
                if (w->cmd)
                    hal_raise_events(HAL_EV_DOORBELL); /* cmd_poll ran already: the next pass */
                if (w->ep_ready)
                    req_poll();
            }
        }
        conn_flush_acks();
    }
    if (w->rare | w->ops_waiting) { /* (none of these polls runs unless one of them is set) */
        if (w->misses_held)
            xlate_post_held();
        if (w->resume)
            rx_send_resumes();
        if (w->ops_waiting)
            ops_poll();
        if (w->evq)
            evq_poll();
        if (w->epc)
            epc_poll();
    }
    if (dmaq_backlog())
        dmaq_pump();
    if (ncp_work.ack_in)
        rx_ack_idle(); /* a piggy-backed ACK deferred behind the data path (rx.c) */
}

void ncp_run_once(void)
{
    ncp_pass();
}

/*
 * The loop main.c runs: passes, sleeping in wfi after each (hal_sleep: unless an intc source is
 * pending). One function for ever, so the registers the pass keeps in callee-saved registers are
 * saved once, not per pass (a pass as a call saved and restored 12 of them: ~29 instructions per
 * pass, ~35 cycles per packet on a stream's receiver). `until` (test images: the benchmark) is
 * called after each pass: > 0 returns, < 0 goes on without sleeping, 0 sleeps; NULL (main.c) never
 * returns.
 */
void ncp_run(int (*until)(void))
{
    for (;;) {
        ncp_pass();
        if (until) {
            int r = until();
            if (r > 0)
                return;
            if (r < 0)
                continue;
        }
        hal_sleep();
    }
}
