/*
 * loop.c - boot and the run-to-completion event loop.
 *
 * Interrupts never trap: the core runs with mstatus.MIE = 0 and wakes from wfi on an enabled
 * pending intc source (DMA completion, frame received, frame sent, doorbell, host) or the timer.
 * The "top half" is hal_take_events(), which acknowledges the intc; the bottom halves are the
 * poll functions of each state machine, each bounded per pass. When a pass finds nothing to do
 * and nothing new is pending, the core sleeps.
 */
#include <stdio.h>
#include <string.h>

#include "ncp.h"
#include "ncp_rt.h"

struct ncp ncp;
#if NCP_PROFILE
uint32_t ncp_prof[16][3], ncp_prof_t, ncp_prof_i;
#endif

void ncp_on_assert(unsigned module, unsigned id)
{
    printf("ncp: assertion %u.%u failed\n", module, id);
    ncp_fatal("internal assertion", module << 8 | id);
}

void ncp_boot(void)
{
    int bad = hal_check_blocks();

    if (bad >= 0)
        ncp_fatal("register block id/version mismatch", (uint32_t)bad);
    memset(&ncp, 0, sizeof ncp);
    ncp.me = hal_node_id();
    ncp.nodes = NCP_MAX_PEERS; /* until INIT says how many */
    for (uint32_t p = 0; p < NCP_MAX_PEERS; p++)
        xport_init(&ncp.peer[p].x, (uint32_t)ncp.me << 24 | p << 16); /* distinct initial numbers */
    xlate_init();
    send_init();
    recv_init();
    cmd_init();
    for (uint32_t e = 0; e < NCP_EPS; e++)
        ncp.ep[e].cur = -1;
    hal_init(HAL_EV_ALL);
    hal_fw_state(1);
}

static void doorbells(void)
{
    uint32_t page, off, data;

    for (uint32_t budget = 0; budget < 32 && hal_db_pop(&page, &off, &data); budget++) {
        if (page == 0)
            cmd_on_doorbell(off, data);
        else
            send_on_doorbell(page, off, data);
    }
}

void ncp_run_once(void)
{
    hal_take_events();
    ncp.now = hal_now();
    dmaq_complete();
    doorbells();
    recv_poll();
    cmd_poll();
    send_tick();
    send_poll();
    send_flush_acks();
    xlate_post_held();
    ops_poll();
    dmaq_pump();
}
