/*
 * imghost.h - the host's part for the NCP firmware test images (tests/fw/ncp_*.c), one copy for all
 * of them (imghost.c): what the driver's INIT and EP_OPEN would set, whole VMH/CBH/PCH lines
 * installed as FILL (or STATIC_LOAD) would after its DMA, send queue entries written into the
 * endpoint's send queue in SRAM and rung as a doorbell would, events consumed at once, miss events
 * answered by a "miss thread" that installs the line after a delay (or, for images that install
 * every line first, failing the test), completions taken from the CQ hook with the time they came.
 * One process (IH_PID) with one endpoint (IH_EP) per node; its virtual pages alias the one host
 * page nicrun pins, or map to a frame with no memory behind it (a host bus error on DMA).
 *
 * imghost.c defines the NCP's test hooks (ncp_test_on_event, ncp_test_on_cqe): an image linked
 * with it (library fw_imghost, tests/fw/ncp_images.cmake) plays the host; it reaches the NCP only
 * through firmware/src/ncp_test.h.
 */
#ifndef IMGHOST_H
#define IMGHOST_H

#include <stdint.h>

#include "fwtest_util.h"
#include "hal.h"
#include "ncp_test.h"
#include "ncp_util.h"

#define IH_PID 1u
#define IH_EP 1u
#define IH_KEY 0xC0FFEEu
#define IH_LBUF 6u /* the local buffer every request names (ABI 2.0 lbuf): all of the address space */
#define IH_NCQE 16u

extern uint64_t ih_host_pa, ih_nomem_pa; /* the pinned host page; an address with no memory */
extern uint32_t ih_me;                   /* this node */
extern uint8_t ih_image[1024];           /* a line image being built (ih_install installs it) */

/* Completions in arrival order: ih_ncqe so far; completion i (and the time it came) at index
 * i % IH_NCQE of the arrays. Events taken, and of those misses. */
extern struct nic_cqe ih_cqe[IH_NCQE];
extern uint32_t ih_cqe_at[IH_NCQE], ih_ncqe;
extern uint32_t ih_events, ih_misses;

/* Checks the harness's arguments, boots the NCP and does what INIT and EP_OPEN would. */
void ih_boot(void);

/* Installs ih_image as line `line` of IH_PID in `cache` (FILL at the current epoch, or
 * STATIC_LOAD in the static build); fails the test unless NIC_ST_OK. */
void ih_install(uint8_t cache, uint32_t line);
/* The VMH line holding page `va` (which starts a line): every page maps to the host page with all
 * rights, except page index `bad` of the line (if < the line's pages), which maps to no memory. */
void ih_install_vmh(uint64_t va, uint32_t bad);
/* CBH line 0 with buffer `buf` (< 8) of IH_PID at va, len bytes, remote read and write, and the
 * local buffer IH_LBUF; IH_PID's PCH line (its endpoint IH_EP). */
void ih_install_buffer(uint32_t buf, uint64_t va, uint32_t len);

/*
 * Miss service. Without it a miss event fails the test (the image installed every line). With it,
 * a miss is answered `delay` cycles later (by ih_step) by installing the line that `build` writes
 * into the image it is given (ncp_test_line_bytes(cache) bytes, zeroed first), at the miss's epoch.
 */
typedef void (*ih_line_fn)(uint8_t cache, uint16_t pid, uint32_t line, uint8_t *image);
void ih_serve_misses(ih_line_fn build, uint32_t delay);

/* A request into the endpoint's send queue, rung as a doorbell would; ih_post: signalled, IH_KEY. */
void ih_post_ex(uint8_t op, uint8_t flags, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff,
                uint32_t rkey, uint32_t wr);
void ih_post(uint8_t op, uint32_t len, uint64_t laddr, uint16_t rnode, uint32_t rbuf, uint64_t roff, uint32_t wr);

/* One pass of the NCP, the misses due, then sleep until an event or at most `wake` cycles. */
void ih_step(uint32_t wake);
/* Runs the NCP until n completions came; fails with `code` after `limit` cycles. */
void ih_run_until_cqes(uint32_t n, uint32_t limit, int code);
/* Runs the NCP for `cycles`. */
void ih_run_for(uint32_t cycles);
/* The host page as it is now, by DMA into buf (4 KiB). */
void ih_read_host_page(uint8_t *buf);
/* A hung NCP: nothing runs for `ticks` (no interrupt source wakes the core, only the timer); then
 * every source is polled and every deadline looked at again, as after a long stall. */
void ih_hang(uint32_t ticks);
/* The MAC's receiver on or off (its transmitter stays on). */
void ih_mac_rx(int on);

/* What the tests check, read now through ncp_test.h. */
struct nic_stats ih_stats(void);
struct ncp_test_counters ih_counters(void);
struct xport_stats ih_peer(uint32_t peer);
struct ncp_test_op ih_op(uint32_t slot);
struct ncp_test_resp ih_resp(void);

#endif /* IMGHOST_H */
