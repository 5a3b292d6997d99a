/*
 * fw_ncp_bench_lkc: VMH lookup hit cost on our core, in cycles per lookup, at A = 2, 4 and 8
 * (C = 16K entries, L = 64, one-word entries as in the NCP's VMH cache). A benchmark, not a
 * timed test: it prints the figures and publishes the A = 4 cost (cycles x 100) in testmb.value;
 * it fails only if a lookup that must hit misses.
 * Run: build/bin/nicrun --nodes 1 build/fw/fw_ncp_bench_lkc.img
 */
#include <stdio.h>

#include "fwtest_util.h"
#include "lkc.h"
#include "ncp_util.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    ncp_fatal("assertion", module << 8 | id);
}

#define C 16384u
static struct lkc_way ways[C / 64u / 2u * 2u] __attribute__((section(".lookup")));
static uint32_t data[C] __attribute__((section(".lookup")));
static uint16_t epochs[128];
static uint32_t seen[64];
static uint32_t uses[C / 64u / 2u * 2u] __attribute__((section(".lookup")));

int main(void)
{
    static const struct lkc_cfg cfgs[3] = {
        {"A2", 7, 1, 6, 0, 7, 11, 1}, {"A4", 6, 2, 6, 0, 7, 11, 1}, {"A8", 5, 3, 6, 0, 7, 11, 1}};
    uint32_t a4 = 0;

    for (unsigned k = 0; k < 3; k++) {
        struct lkc c;
        unsigned way;
        lkc_init(&c, &cfgs[k], ways, data, epochs, seen, uses);
        /* fill every way of every set so each hit scans a full set: lines 0 .. C/64 - 1 */
        for (uint32_t line = 0; line < C / 64u; line++) {
            uint32_t *d = lkc_fill_begin(&c, 1, line, lkc_epoch(&c, 1), &way);
            for (uint32_t i = 0; i < 64; i++)
                d[i] = line << 8 | i;
            lkc_fill_commit(&c, way, 1, line);
        }
        uint32_t n = 4096, sum = 0, t0 = ncp_rdcycle();
        for (uint32_t i = 0; i < n; i++) {
            /* pages spread over all lines; the last way filled in a set is the worst case */
            const uint32_t *e = lkc_lookup(&c, 1, (i * 2654435761u) % C, LKC_PATH_SEND);
            sum += e ? *e : 0xFFFFFFFFu;
        }
        uint32_t cycles = ncp_rdcycle() - t0;
        FWT_CHECK(c.st.hits == n, 2, "a filled line missed");
        printf("lkc hit cost %s: %lu.%02lu cycles per lookup (C=%u L=64, %lu lookups, checksum %08lx)\n",
               cfgs[k].name, (unsigned long)(cycles / n), (unsigned long)(cycles % n * 100u / n), C,
               (unsigned long)n, (unsigned long)sum);
        if (k == 1)
            a4 = cycles * 100u / n;
    }
    ncp_test_value(a4);
    return 0;
}
