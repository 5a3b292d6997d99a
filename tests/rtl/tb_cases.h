/* The RTL testbench cases (one function per CTest test rtl.<block>.<case>); 0 = ran. */
#ifndef TB_CASES_H
#define TB_CASES_H

#include <stdio.h>

#include "tb_env.h"

int tb_hostif_reset(struct tb_env *e);
int tb_hostif_window_sram(struct tb_env *e);
int tb_hostif_window_imem(struct tb_env *e);
int tb_hostif_irq(struct tb_env *e);
int tb_intc_basic(struct tb_env *e);
int tb_timer_basic(struct tb_env *e);
int tb_perf_basic(struct tb_env *e);
int tb_doorbell_order(struct tb_env *e);
int tb_doorbell_overflow(struct tb_env *e);
int tb_doorbell_storm(struct tb_env *e);
int tb_doorbell_sendq(struct tb_env *e);
int tb_dma_roundtrip(struct tb_env *e);
int tb_dma_errors(struct tb_env *e);
int tb_dma_inflight(struct tb_env *e);
int tb_dma_random(struct tb_env *e);
int tb_mac_tx(struct tb_env *e);
int tb_mac_rx(struct tb_env *e);
int tb_mac_rx_drops(struct tb_env *e);
int tb_mac_ring_wrap(struct tb_env *e);
int tb_mac_pause(struct tb_env *e);
int tb_mac_loopback(struct tb_env *e);
int tb_mac_rate(struct tb_env *e);
int tb_mac_gated(struct tb_env *e);
int tb_mac_cut_through(struct tb_env *e);
int tb_mac_ctl_queue(struct tb_env *e);
int tb_core_decoder(struct tb_env *e);
int tb_core_irq(struct tb_env *e);
int tb_sram_bandwidth(struct tb_env *e);

#endif /* TB_CASES_H */
