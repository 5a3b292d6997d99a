/*
 * Unit tests of the flow and congestion control rules (firmware/lib/cc.c) with fake inputs:
 * the flow limit (ack + credit, forward only, kept across frames without a credit, a credit of 0
 * lifts it, the credit before the first ACK frame); the AIMD window (start, about one packet more
 * per window acknowledged, halved on an echo at most once per round trip, bounded,
 * wrap-safe); the options switch each rule off; the receiver's grant (an equal share of its
 * buffers, at most their free part, never below 1, 8 bits); and a model of senders and a slow
 * receiver whose ring is never overrun with credits and is without them.
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

static const struct cc_cfg cfg = {.rx_slots = 14, .credit_init = 0, .win_init = 2, .win_min = 1, .win_max = 32};
#define ALL (CC_OPT_FC | CC_OPT_CC)

static void off_is_the_full_window(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 100, 0);
    assert_int_equal(t.win, 32);
    assert_int_equal(cc_tx_update(&t, &cfg, 0, 101, 110, 1, 1, 101, 3), 0); /* echo and credit ignored */
    assert_int_equal(t.win, 32);
}

static void flow_limit_is_ack_plus_credit(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 0, CC_OPT_FC);
    assert_int_equal(t.win, 32); /* no credit heard yet (credit_init 0): the transport's window */
    cc_tx_update(&t, &cfg, CC_OPT_FC, 0, 5, 0, 1, 0, 7); /* limit 7 */
    assert_int_equal(t.win, 7);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 3, 5, 0, 0, 3, 0); /* a data frame acknowledging 3: limit stays 7 */
    assert_int_equal(t.win, 4);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 7, 7, 0, 0, 7, 0); /* everything granted acknowledged: 1 (liveness) */
    assert_int_equal(t.win, 1);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 7, 7, 0, 1, 7, 5); /* limit 12 */
    assert_int_equal(t.win, 5);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 7, 9, 0, 1, 6, 2); /* an older ACK frame: limit 8 < 12, kept */
    assert_int_equal(t.win, 5);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 7, 9, 0, 1, 7, 0); /* the receiver grants none: no limit */
    assert_int_equal(t.win, 32);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 7, 9, 0, 1, 7, 200); /* beyond the transport's window */
    assert_int_equal(t.win, 32);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 8, 9, 1, 1, 8, 9); /* limit 207 kept (forward only); an echo without CC: no cut */
    assert_int_equal(t.win, 32);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 8, 9, 0, 1, 8, 0);
    cc_tx_update(&t, &cfg, CC_OPT_FC, 8, 9, 1, 1, 8, 9); /* a fresh limit 17 */
    assert_int_equal(t.win, 9);
}

static void credit_before_the_first_ack(void **state)
{
    struct cc_cfg c2 = cfg;
    struct cc_tx t;
    (void)state;
    c2.credit_init = 1;
    cc_tx_init(&t, &c2, 50, CC_OPT_FC);
    assert_int_equal(t.win, 1); /* several senders may start at once */
    cc_tx_update(&t, &c2, CC_OPT_FC, 50, 51, 0, 0, 50, 0); /* a data frame: still 1 */
    assert_int_equal(t.win, 1);
    cc_tx_update(&t, &c2, CC_OPT_FC, 51, 51, 0, 1, 51, 14); /* the first ACK frame's grant */
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
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 2, 0, 1, una, 0);
    }
    assert_int_equal(t.win, 2);
    una++;
    cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 2, 0, 1, una, 0);
    assert_int_equal(t.win, 3);
    for (int i = 0; i < 3; i++) {
        una++;
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 3, 0, 1, una, 0);
    }
    assert_int_equal(t.win, 4);
    /* a repeated ACK (una unchanged) adds nothing */
    uint32_t c = t.cwnd;
    cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 3, 0, 1, una, 0);
    assert_int_equal(t.cwnd, c);
    /* many windows: capped at win_max */
    for (int i = 0; i < 2000; i++) {
        una++;
        cc_tx_update(&t, &cfg, CC_OPT_CC, una, una + 32, 0, 1, una, 0);
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
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 1, 20, 1, 1, 1, 0), 1); /* cut: 8, until una > 20 */
    assert_int_equal(t.win, 8);
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 5, 20, 1, 1, 5, 0), 0); /* same window: no cut */
    assert_int_equal(t.win, 8);
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 19, 22, 1, 1, 19, 0), 0);
    assert_int_equal(t.win, 8); /* an ACK with an echo does not grow the window either */
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 20, 24, 1, 1, 20, 0), 0); /* all in flight at the cut */
    assert_int_equal(cc_tx_update(&t, &cfg, CC_OPT_CC, 21, 24, 1, 1, 21, 0), 1); /* one sent after it: a round trip */
    assert_int_equal(t.win, 4);
    for (uint32_t u = 100; u < 110; u++) /* floor */
        cc_tx_update(&t, &cfg, CC_OPT_CC, u, u, 1, 1, u, 0);
    assert_int_equal(t.win, 1);
    assert_int_equal(t.cwnd, CC_FRAC);
}

static void wraps_around(void **state)
{
    struct cc_tx t;
    uint32_t una = 0xFFFFFFFEu;
    (void)state;
    cc_tx_init(&t, &cfg, una, ALL);
    t.cwnd = 8 * CC_FRAC;
    assert_int_equal(cc_tx_update(&t, &cfg, ALL, una, una + 6, 1, 1, una, 10), 1); /* cut_seq 4, limit 8 */
    assert_int_equal(t.win, 4);
    assert_int_equal(cc_tx_update(&t, &cfg, ALL, 2, 6, 1, 0, 2, 0), 0); /* before 4: none */
    assert_int_equal(cc_tx_update(&t, &cfg, ALL, 4, 6, 1, 0, 4, 0), 0); /* reached, not passed */
    assert_int_equal(cc_tx_update(&t, &cfg, ALL, 5, 6, 1, 0, 5, 0), 1); /* passed: cut to 2 */
    assert_int_equal(t.win, 2);
    assert_int_equal(cc_tx_window(&t, &cfg, CC_OPT_FC, 4), 4); /* the flow limit 8 across the wrap */
    uint32_t c = t.cwnd; /* an old una (behind) acknowledges nothing, grows nothing */
    cc_tx_update(&t, &cfg, ALL, 0xFFFFFFF0u, 6, 0, 0, 0xFFFFFFF0u, 0);
    assert_int_equal(t.cwnd, c);
}

static void both_take_the_smaller(void **state)
{
    struct cc_tx t;
    (void)state;
    cc_tx_init(&t, &cfg, 0, ALL);
    t.cwnd = 10 * CC_FRAC;
    cc_tx_update(&t, &cfg, ALL, 0, 0, 0, 1, 0, 4);
    assert_int_equal(t.win, 4);
    cc_tx_update(&t, &cfg, ALL, 0, 0, 0, 1, 0, 14);
    assert_int_equal(t.win, 10);
}

static void grant_shares_the_pool(void **state)
{
    (void)state;
    assert_int_equal(cc_grant(&cfg, 0, 1), 14);  /* one sender: the whole pool */
    assert_int_equal(cc_grant(&cfg, 0, 2), 7);   /* an equal share */
    assert_int_equal(cc_grant(&cfg, 0, 8), 2);   /* rounded up: the free part bounds the sum */
    assert_int_equal(cc_grant(&cfg, 13, 8), 1);
    assert_int_equal(cc_grant(&cfg, 10, 2), 4);  /* at most what is free */
    assert_int_equal(cc_grant(&cfg, 14, 2), 1);  /* none free: still 1 (liveness) */
    assert_int_equal(cc_grant(&cfg, 40, 3), 1);
    assert_int_equal(cc_grant(&cfg, 0, 20), 1);  /* more senders than slots */
    assert_int_equal(cc_grant(&cfg, 0, 0), 14);
    struct cc_cfg big = cfg;
    big.rx_slots = 1000;
    assert_int_equal(cc_grant(&big, 0, 1), 255); /* 8 bits on the wire */
}

/*
 * n senders streaming to a receiver that drains one packet every 3 ticks from a ring of 16 (the
 * NCP's), acknowledging each sender in turn with the grant the NCP computes (pool accounting as
 * congestion.c). With flow control the ring never holds more than 16 and nothing is dropped;
 * without, a single sender overruns it.
 */
#define MS 8
static uint32_t model(unsigned n, uint32_t opts, uint32_t *drops)
{
    struct cc_cfg c = cfg;
    struct cc_tx t[MS];
    uint32_t nxt[MS] = {0}, got[MS] = {0}, lim[MS] = {0}, granted[MS] = {0};
    uint32_t ring[16], head = 0, len = 0, maxr = 0;
    c.credit_init = 1;
    *drops = 0;
    for (unsigned i = 0; i < n; i++)
        cc_tx_init(&t[i], &c, 0, opts);
    for (uint32_t now = 0; now < 6000; now++) {
        unsigned i = now % n; /* one sender sends per tick */
        if (nxt[i] - t[i].una < t[i].win && nxt[i] - t[i].una < 32) {
            if (len == 16)
                (*drops)++; /* lost: counted (the model's sender goes on) */
            else
                ring[(head + len++) % 16] = i;
            nxt[i]++;
        }
        if (len > maxr)
            maxr = len;
        if (now % 3 == 0 && len) { /* the receiver: drains one, acknowledges its sender */
            unsigned s = ring[head];
            head = (head + 1) % 16;
            len--;
            got[s]++;
            uint32_t ack = got[s] + (nxt[s] - got[s]) * 0; /* in-order model: ack = delivered */
            uint32_t cr = 0;
            if (opts & CC_OPT_FC) {
                uint32_t others = 0, holders = 1;
                for (unsigned q = 0; q < n; q++)
                    if (q != s && granted[q] && lim[q] > got[q])
                        others += lim[q] - got[q], holders++;
                cr = cc_grant(&c, others, holders);
                if (granted[s] && ack + cr < lim[s])
                    cr = lim[s] - ack;
                lim[s] = ack + cr;
                granted[s] = 1;
            }
            /* lost packets are skipped in this model: the sender's una is what was delivered or lost */
            cc_tx_update(&t[s], &c, opts, ack, nxt[s], 0, 1, ack, cr);
        }
    }
    return maxr;
}

static void receiver_never_overrun(void **state)
{
    uint32_t drops;
    (void)state;
    assert_true(model(1, CC_OPT_FC, &drops) <= 14);
    assert_int_equal(drops, 0);
    for (unsigned n = 2; n <= MS; n++) {
        assert_true(model(n, CC_OPT_FC, &drops) <= 16);
        assert_int_equal(drops, 0);
    }
    model(1, 0, &drops);
    assert_true(drops > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(off_is_the_full_window),
        cmocka_unit_test(flow_limit_is_ack_plus_credit),
        cmocka_unit_test(credit_before_the_first_ack),
        cmocka_unit_test(aimd_increase_per_window),
        cmocka_unit_test(echo_halves_once_per_window),
        cmocka_unit_test(wraps_around),
        cmocka_unit_test(both_take_the_smaller),
        cmocka_unit_test(grant_shares_the_pool),
        cmocka_unit_test(receiver_never_overrun),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
