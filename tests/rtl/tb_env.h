/*
 * tb_env: the simulated world around one nic_top for the RTL testbenches: a host MMIO initiator,
 * a host memory that answers the DMA master (latency, back-pressure and bus-error regions), a
 * link sink that collects TX frames and a link source that injects RX frames. Deterministic:
 * every random choice comes from the env's own xorshift generator and seed.
 */
#ifndef TB_ENV_H
#define TB_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "nic_memmap.h"
#include "nic_model.h"

#define TB_HOST_BASE 0x100000000ull   /* host memory model: [base, base + size) */
#define TB_HOST_SIZE (1u << 20)
#define TB_MAX_FRAMES 256
#define TB_MAX_FRAME 4096
#define TB_Q 64

struct tb_frame {
    uint32_t len;
    uint8_t data[TB_MAX_FRAME];
};

struct tb_dreq {
    uint64_t addr, ready_at;
    uint32_t len, done;
    uint8_t tag, err;
};

struct tb_env {
    nic_model_t *nic;
    struct nic_pins pins;
    struct nic_pins *p; /* &pins */
    uint64_t cycle;
    uint32_t rng;
    int failures;
    /* host memory and DMA target behaviour */
    uint8_t *hmem;
    uint64_t err_lo, err_hi;          /* accesses overlapping [lo, hi) get a bus error */
    uint32_t dma_latency;             /* cycles from request to first response / ack */
    int dma_random_stall;             /* randomly drop ready/valid on the DMA channels */
    struct tb_dreq rq[TB_Q]; unsigned rq_head, rq_tail;     /* reads awaiting data */
    struct tb_dreq wq[TB_Q]; unsigned wq_head, wq_tail;     /* writes awaiting data */
    struct tb_dreq aq[TB_Q]; unsigned aq_head, aq_tail;     /* writes awaiting their ack */
    uint64_t dma_req_count, dma_rd_beats, dma_wr_beats;
    uint32_t dma_max_inflight, dma_inflight;
    /* link */
    int tx_random_stall;
    struct tb_frame *tx; unsigned tx_count; uint32_t tx_cur;
    uint64_t tx_bytes_total;
    struct tb_frame *rx; unsigned rx_head, rx_tail; uint32_t rx_pos;
    uint32_t rx_gap;                  /* idle cycles between injected frames */
    uint32_t rx_gap_left;
    uint32_t rx_rate_bits;            /* 0: one beat per cycle; else pace to this many bits/cycle */
    uint32_t rx_credit;
    /* host MMIO */
    uint32_t last_rsp;
    int rsp_seen;
    /* console */
    char console[256]; unsigned console_len;
};

struct tb_env *tb_env_new(uint32_t seed);
void tb_env_free(struct tb_env *e);
uint32_t tb_rand(struct tb_env *e);
void tb_cycle(struct tb_env *e);
void tb_cycles(struct tb_env *e, unsigned n);
void tb_reset(struct tb_env *e);

/* host MMIO (bar: a NIC_BAR_*_CODE from nic_memmap.h); bounded waits, failures counted */
void tb_host_wr(struct tb_env *e, unsigned bar, uint32_t addr, uint32_t data);
void tb_host_wr_be(struct tb_env *e, unsigned bar, uint32_t addr, uint32_t data, unsigned be);
uint32_t tb_host_rd(struct tb_env *e, unsigned bar, uint32_t addr);
#define tb_reg_wr(e, blk, reg, v) tb_host_wr((e), NIC_BAR_REGS_CODE, (blk##_OFFSET) + (reg), (v))
#define tb_reg_rd(e, blk, reg) tb_host_rd((e), NIC_BAR_REGS_CODE, (blk##_OFFSET) + (reg))

/* SRAM access through the host window (sets win_base) */
void tb_sram_write(struct tb_env *e, uint32_t off, const void *buf, uint32_t len);
void tb_sram_read(struct tb_env *e, uint32_t off, void *buf, uint32_t len);

/* link */
void tb_rx_inject(struct tb_env *e, const uint8_t *data, uint32_t len);
int tb_rx_busy(const struct tb_env *e);

/* wait until cond() or a cycle budget runs out; returns 0 on timeout */
int tb_wait(struct tb_env *e, int (*cond)(struct tb_env *), unsigned budget);

/* checks */
#define TB_CHECK(e, c) tb_check((e), (c), #c, __FILE__, __LINE__)
#define TB_EQ(e, a, b) tb_check_eq((e), (uint64_t)(a), (uint64_t)(b), #a " == " #b, __FILE__, __LINE__)
void tb_check(struct tb_env *e, int ok, const char *what, const char *file, int line);
void tb_check_eq(struct tb_env *e, uint64_t got, uint64_t want, const char *what, const char *file, int line);

#endif /* TB_ENV_H */
