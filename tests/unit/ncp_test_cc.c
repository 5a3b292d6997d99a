/*
 * Unit tests of the flow and congestion control rules (firmware/lib/cc.c) with fake inputs:
 * credits limit the window and persist across frames without one, a credit of 0 means none; the
 * AIMD window: start, one packet more per window acknowledged, halved on an echo at most once per
 * window in flight, bounded by win_min / win_max, wrap-safe; the options switch each rule off; the
 * receiver's credit shares its ring among the peers acknowledged this epoch or the last, never
 * below 1; and a model of one sender and a slow receiver: the receiver never holds more packets
 * than its ring with credits, and overflows without them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cc.h"
#include "ncp_util.h"

void ncp_on_assert(unsigned module, unsigned id)
{
    fail_msg("NCP_ASSERT module %u id %u", module, id);
}

static const struct cc_cfg cfg = {.rx_slots = 14, .win_init = 2, .win_min = 1, .win_max = 32, .active_shift = 12};
#define ALL (CC_OPT_FC | CC_OPT_CC)

static void cc_off_is_the_full_window(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 100, 0);
    assert_int_equal(t.win, 32);
    assert_int_equal(cc_tx_update(&t, &cfg, 0, 101, 110, 1, 1, 3), 0); /* echo and credit ignored */
    assert_int_equal(t.win, 32);
}

static void credit_limits_and_persists(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 0, CC_OPT_FC);
    assert_int_equal(t.win, 32); /* no credit heard yet: the transport's window */
    cc_tx_update(&t, &cfg, CC_OPT_FC, 0, 5, 0, 1, 7);
    assert_int_equal(t.win, 7);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 3, 5, 0, 0, 0); /* a data frame: no credit field, keeps 7 */
    assert_int_equal(t.win, 7);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 3, 5, 0, 1, 1);
    assert_int_equal(t.win, 1);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 3, 5, 0, 1, 0); /* the receiver advertises none */
    assert_int_equal(t.win, 32);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 3, 5, 0, 1, 200); /* above the transport's window */
    assert_int_equal(t.win, 32);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 4, 5, 1, 1, 9); /* an echo without CC: no cut */
    assert_int_equal(t.win, 9);
}

static void credit_before_the_first_ack(void **state)
{
    struct cc_cfg c2 = cfg;
    struct cc_tx t;
    (void)state;
    c2.credit_init = 2;
    cc_tx_init(&t, &c2, 0, CC_OPT_FC);
    assert_int_equal(t.win, 2); /* several senders may start at once: 2 each until an ACK */
    cc_tx_update(&t, &c2, CC_OPT_FC, 0, 2, 0, 0, 0); /* a data frame: still 2 */
    assert_int_equal(t.win, 2);
    cc_tx_update(&t, &c2, CC_OPT_FC, 1, 2, 0, 1, 14); /* the first ACK frame's credit */
    assert_int_equal(t.win, 14);
    cc_tx_init(&t, &c2, 0, 0); /* flow control off: not limited */
    assert_int_equal(t.win, 32);
}

static void aimd_increase_per_window(void **state)
{
    struct cc_tx t;
    uint32_t una = 0;
    (void)state;
    cc_tx_init(&t, &cfg, una, CC_OPT_CC);
    assert_int_equal(t.win, 2);
    /* 1/cwnd packet per ACK: about one packet per window (cwnd^2 grows by 2 per ACK: 2 -> 3 after
     * 3 ACKs, -> 4 after 6) */
    for (int i = 0; i < 2; i++) {
        una++;
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 2, 0, 1, 0);
    }
    assert_int_equal(t.win, 2);
    una++;
    cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 2, 0, 1, 0);
    assert_int_equal(t.win, 3);
    for (int i = 0; i < 3; i++) {
        una++;
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 3, 0, 1, 0);
    }
    assert_int_equal(t.win, 4);
    /* a repeated ACK (una unchanged) adds nothing */
    cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 3, 0, 1, 0);
    assert_int_equal(t.win, 4);
    /* many windows: capped at win_max */
    for (int i = 0; i < 2000; i++) {
        una++;
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 32, 0, 1, 0);
    }
    assert_int_equal(t.win, 32);
    assert_int_equal(t.cwnd, 32 * CC_FRAC);
}

static void echo_halves_once_per_window(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 0, CC_OPT_CC);
    t.cwnd = 16 * CC_FRAC;
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 1, 20, 1, 1, 0), 1); /* cut: 8, until una >= 20 */
    assert_int_equal(t.win, 8);
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 5, 20, 1, 1, 0), 0); /* same window: no cut */
    assert_int_equal(t.win, 8);
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 19, 22, 1, 1, 0), 0);
    assert_int_equal(t.win, 8); /* an ACK with an echo does not grow the window either */
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 20, 24, 1, 1, 0), 1); /* the next window */
    assert_int_equal(t.win, 4);
    /* floor */
    for (uint32_t u = 100; u < 110; u++)
        cc_tx_update(&t, &cfg, CC_OPT_CC, u, u, 1, 1, 0);
    assert_int_equal(t.win, 1);
    assert_int_equal(t.cwnd, CC_FRAC);
}

static void wraps_around(void **state)
{
    struct cc_tx t;
    uint32_t una = 0xFFFFFFFEu;
    (void)state;
    cc_tx_init(&t, &cfg, una, CC_OPT_CC);
    t.cwnd = 8 * CC_FRAC;
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 6, 1, 1, 0), 1); /* cut_seq = 4 */
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 2, 6, 1, 1, 0), 0);        /* before 4: none */
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 4, 6, 1, 1, 0), 1);        /* passed: cut */
    assert_int_equal(t.win, 2);
    /* an old una (behind) acknowledges nothing, grows nothing */
    uint32_t c = t.cwnd;
    cc_tx_update(&t, &cfg, CC_OPT_CC, 0xFFFFFFF0u, 6, 0, 1, 0);
    assert_int_equal(t.cwnd, c);
}

static void both_take_the_smaller(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 0, ALL);
    t.cwnd = 10 * CC_FRAC;
    cc_tx_update(&t, &cfg, ALL, 0, 0, 0, 1, 4);
    assert_int_equal(t.win, 4);
    cc_tx_update(&t, &cfg, ALL, 0, 0, 0, 1, 14);
    assert_int_equal(t.win, 10);
}

static void credit_shares_the_ring(void **state)
{
    struct cc_share s = {0};
    uint32_t pe[8] = {0};
    uint32_t now = 5u << 12;
    (void)state;
    assert_int_equal(cc_credit(&s, &pe[0], &cfg, now), 14); /* one sender: the whole ring */
    assert_int_equal(cc_credit(&s, &pe[0], &cfg, now + 1), 14); /* the same one again */
    assert_int_equal(cc_credit(&s, &pe[1], &cfg, now + 2), 7);
    assert_int_equal(cc_credit(&s, &pe[2], &cfg, now + 3), 4);
    assert_int_equal(cc_credit(&s, &pe[3], &cfg, now + 4), 3);
    /* next epoch: the last epoch's four still count */
    assert_int_equal(cc_credit(&s, &pe[0], &cfg, now + 4096), 3);
    /* eight senders: 14 / 8 = 1 */
    for (int i = 1; i < 8; i++)
        cc_credit(&s, &pe[i], &cfg, now + 4100);
    assert_int_equal(cc_credit(&s, &pe[0], &cfg, now + 4101), 1);
    /* two epochs later only the one left counts */
    assert_int_equal(cc_credit(&s, &pe[0], &cfg, now + 3 * 4096), 14);
    /* more senders than slots: never 0 */
    struct cc_share s2 = {0};
    uint32_t pe2[20] = {0};
    for (int i = 0; i < 20; i++)
        assert_true(cc_credit(&s2, &pe2[i], &cfg, now) >= 1);
    assert_int_equal(cc_credit(&s2, &pe2[19], &cfg, now), 1);
    /* a large ring: capped at 255 (8 bits on the wire) */
    struct cc_cfg big = cfg;
    big.rx_slots = 1000;
    struct cc_share s3 = {0};
    uint32_t p3 = 0;
    assert_int_equal(cc_credit(&s3, &p3, &big, now), 255);
}

/*
 * One sender streaming to a receiver that drains one packet every `slow` ticks into a ring of 16
 * (the NCP's), acknowledging after each packet with the credit cc_credit gives. With credits the
 * ring never holds more than rx_slots; without (a window of 32), it overflows.
 */
static uint32_t model_max_ring(uint32_t opts, uint32_t *drops)
{
    struct cc_tx t;
    struct cc_share s = {0};
    uint32_t pe = 0, nxt = 0, una = 0, ring = 0, maxr = 0, slow = 3;
    cc_tx_init(&t, &cfg, 0, opts);
    *drops = 0;
    for (uint32_t now = 0; now < 3000; now++) {
        if (nxt - una < t.win && nxt - una < 32) { /* the sender: one packet per tick */
            nxt++;
            if (ring == 16)
                (*drops)++, una = nxt; /* lost (counted; the model resends nothing) */
            else
                ring++;
        }
        if (ring > maxr)
            maxr = ring;
        if (now % slow == 0 && ring) { /* the receiver: drains one, acknowledges */
            ring--;
            una = nxt - ring;
            cc_tx_update(&t, &cfg, opts, una, nxt, 0, 1, (opts & CC_OPT_FC) ? cc_credit(&s, &pe, &cfg, now) : 0);
        }
    }
    return maxr;
}

static void single_sender_never_overruns(void **state)
{
    uint32_t drops;
    (void)state;
    assert_true(model_max_ring(CC_OPT_FC, &drops) <= cfg.rx_slots);
    assert_int_equal(drops, 0);
    assert_int_equal(model_max_ring(0, &drops), 16);
    assert_true(drops > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cc_off_is_the_full_window),
        cmocka_unit_test(credit_limits_and_persists),
        cmocka_unit_test(credit_before_the_first_ack),
        cmocka_unit_test(aimd_increase_per_window),
        cmocka_unit_test(echo_halves_once_per_window),
        cmocka_unit_test(wraps_around),
        cmocka_unit_test(both_take_the_smaller),
        cmocka_unit_test(credit_shares_the_ring),
        cmocka_unit_test(single_sender_never_overruns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
