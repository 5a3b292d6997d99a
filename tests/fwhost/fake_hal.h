/*
 * fake_hal.h - a fake NIC behind firmware/hal/hal.h for the host-native NCP (NCP_HOST build).
 *
 * It models what the NCP sees through the HAL, no more: the host DMA engine (a submit queue of
 * FH_DMA_QDEPTH requests with tags, completed in order with an error code when the test lets the
 * hardware run), host physical memory (a flat array), the MAC (the RX descriptor ring filled as the
 * hardware fills it, TX frames captured when the MAC sends them, the tx-done counter), the doorbell
 * block (coalescing registers for the protocol's doorbells, a FIFO for the rest), the intc, the
 * timer (mtime is set by the test) and the hostif registers (fw_state, info block, host irq).
 *
 * The test drives time and hardware: fh_run() is the NCP's main loop (ncp_run_once, then "sleep":
 * the hardware completes queued DMAs and sends queued frames, the timer fires when due) until
 * nothing is left to do. An NCP assertion or fatal stop fails the running cmocka test.
 */
#ifndef FAKE_HAL_H
#define FAKE_HAL_H

#include <stdint.h>
#include <stdio.h>

#define FH_HOST_MEM (16u << 20) /* host physical memory: [0, FH_HOST_MEM) */
#define FH_DMA_QDEPTH 8u        /* nic_top.v DMA_QDEPTH */
#define FH_DMA_CPL_DEPTH 16u    /* nic_top.v DMA_CPL_DEPTH */
#define FH_TXQ_DEPTH 8u         /* nic_top.v MAC_TXQ */
#define FH_TXCQ_DEPTH 16u       /* nic_mac.v TXCQ_DEPTH: the control queue */
#define FH_DB_FIFO 64u          /* nic_top.v DB_DEPTH */
#define FH_MAX_FRAME 9216u      /* nic_top.v MAX_FRAME */

/* DMA error codes (dma.cpl_head.err). */
enum { FH_DMA_OK = 0, FH_DMA_HOST_ERR = 1, FH_DMA_SRAM_ERR = 2, FH_DMA_LEN_ERR = 3 };

/* A frame the MAC sent. */
struct fh_frame {
    uint32_t len;
    uint8_t *data;
};

/* A DMA request as the engine completed it (data: the bytes moved, len of them). */
struct fh_dma {
    uint64_t host;
    uint32_t sram, len;
    uint8_t to_host, tag, err;
};

/* Resets the hardware (node id as the driver set it); the NCP boots after this (ncp_boot). */
void fh_reset(uint16_t node_id);
/* The NCP's main loop until it sleeps with nothing pending, the hardware idle, the timer not due.
 * Returns the number of passes. */
unsigned fh_run(void);

/* Time: mtime (cycles). fh_advance moves it; the timer's deadline, if armed. */
uint32_t fh_now(void);
void fh_advance(uint32_t cycles);
int fh_timer_armed(uint32_t *deadline);

/* SRAM and host memory. */
void *fh_sram(uint32_t off);
uint8_t *fh_host(uint64_t pa, uint32_t len); /* asserts the range is inside host memory */

/* DMA: hold (1) keeps queued requests from completing; fail the next `n` requests that touch
 * [lo, hi) of host memory with error `err`. */
void fh_dma_hold(int hold);
void fh_dma_fail(uint64_t lo, uint64_t hi, uint32_t n, uint8_t err);
void fh_dma_bad_tag(int n); /* the next n completions carry a wrong tag (a broken engine) */
uint32_t fh_dma_queued(void);            /* submitted, not completed */
uint32_t fh_dma_complete(uint32_t n);    /* completes up to n queued requests now, held or not */
uint32_t fh_dma_count(void);             /* completed so far */
const struct fh_dma *fh_dma_log(uint32_t i); /* the i-th completed request */

/* MAC: a frame from the link into the RX ring (0: dropped, ring full or too long). */
int fh_inject(const void *frame, uint32_t len);
uint32_t fh_rx_nobuf(void);
uint32_t fh_tx_count(void);
const struct fh_frame *fh_tx(uint32_t i);
void fh_mac_hold(int hold); /* 1: queued frames are not sent */
uint32_t fh_mac_tx_voided(void); /* gated frames voided (their DMA failed): not sent */
uint32_t fh_mac_send(uint32_t n); /* sends up to n queued frames now, held or not; returns how many */

/* Doorbells: a host write into doorbell page `page` at `offset`. */
void fh_doorbell(uint32_t page, uint32_t offset, uint32_t data);
/* A doorbell that arrives during a pass: rung when the NCP next reads the intc's pending bits
 * (hal_events_pending); fh_doorbell_fired() says whether it was. */
void fh_doorbell_at_peek(uint32_t page, uint32_t offset, uint32_t data);
int fh_doorbell_fired(void);

/* hostif: fw_state, the info block's SRAM offset, host interrupts raised (per cause bit). */
uint32_t fh_fw_state(void);
uint32_t fh_info_off(void);
uint32_t fh_irqs(uint32_t cause_mask);

/* Runs fn; returns 1 if the NCP stopped in it (ncp_fatal, also on an assertion), with the stop's
 * code in *code, else 0. Outside fh_try a stop fails the running test. */
int fh_try(void (*fn)(void), uint32_t *code);
/* Boot checks: hal_check_blocks reports block `bad` (-1: all good). */
void fh_bad_block(int bad);

/* Everything observable at the HAL boundary, one line each, written to `f` (NULL: off): DMA
 * completions with their data, frames sent, host interrupts, fw_state, timer programming. */
void fh_trace(FILE *f);
void fh_trace_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FAKE_HAL_H */
