/*
 * tb_nic: runs one RTL testbench case on the Verilated nic_top.
 *   tb_nic <block>.<case> [seed]      e.g. tb_nic dma.errors
 *   tb_nic --list
 * Exit status 0 when every check of the case passed. Seeds are fixed by default (deterministic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tb_cases.h"

static const struct {
    const char *name;
    int (*fn)(struct tb_env *);
} cases[] = {
    {"hostif.reset", tb_hostif_reset},
    {"hostif.window_sram", tb_hostif_window_sram},
    {"hostif.window_imem", tb_hostif_window_imem},
    {"hostif.irq", tb_hostif_irq},
    {"intc.basic", tb_intc_basic},
    {"timer.basic", tb_timer_basic},
    {"perf.basic", tb_perf_basic},
    {"doorbell.order", tb_doorbell_order},
    {"doorbell.overflow", tb_doorbell_overflow},
    {"doorbell.storm", tb_doorbell_storm},
    {"doorbell.sendq", tb_doorbell_sendq},
    {"dma.roundtrip", tb_dma_roundtrip},
    {"dma.errors", tb_dma_errors},
    {"dma.inflight", tb_dma_inflight},
    {"dma.random", tb_dma_random},
    {"mac.tx", tb_mac_tx},
    {"mac.rx", tb_mac_rx},
    {"mac.rx_drops", tb_mac_rx_drops},
    {"mac.ring_wrap", tb_mac_ring_wrap},
    {"mac.pause", tb_mac_pause},
    {"mac.loopback", tb_mac_loopback},
    {"mac.rate", tb_mac_rate},
    {"mac.gated", tb_mac_gated},
    {"mac.cut_through", tb_mac_cut_through},
    {"mac.ctl_queue", tb_mac_ctl_queue},
    {"core.decoder", tb_core_decoder},
    {"core.irq", tb_core_irq},
    {"sram.bandwidth", tb_sram_bandwidth},
};

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) printf("%s\n", cases[i].name);
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s <block>.<case> [seed] | --list\n", argv[0]);
        return 2;
    }
    uint32_t seed = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 0x1234567u;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        struct tb_env *e = tb_env_new(seed);
        cases[i].fn(e);
        int fails = e->failures;
        printf("%s: %s after %llu cycles (%d failed checks)\n", cases[i].name, fails ? "FAIL" : "PASS",
               (unsigned long long)e->cycle, fails);
        tb_env_free(e);
        return fails ? 1 : 0;
    }
    fprintf(stderr, "unknown case %s (--list)\n", argv[1]);
    return 2;
}
