/*
 * fw_nic_link: frames between NICs through the switch, with interrupts and timer (run by nicrun
 * --check-link, any number of nodes, any fault injection).
 *
 * Each node sends FWT_ARGS->frames frames of varying length to the next node (ring order) and
 * receives from the previous one. Every frame the MAC accepts (good CRC) must carry exactly the
 * bytes its sender wrote (check 3-5): corruption must never get past the MAC. The node sleeps in
 * wfi with mstatus.MIE = 0, woken by the intc sources mac_rx / mac_tx (MEIP) or by the timer
 * (MTIP) that bounds the quiet period after the last frame; then it reports in testmb.value
 * FWTEST_LINK_VALUE(frames the MAC saw, bad CRC, other drops), where the MAC saw ok + bad CRC +
 * runt + oversize + no buffer; nicrun --check-link matches these against the frames the switch
 * handed this NIC and the bad FCSs among them: every frame is accounted for.
 */
#include <string.h>

#include "fwtest_util.h"

#define RX_LOG2 6
#define RX_N (1u << RX_LOG2)
#define BUF 2048u
#define TX_N 8u
#define HDR 12u
#define QUIET                                                                                     \
    200000u         /* mtime cycles without a frame once done sending (1 ms): well above a peer's \
                     * longest pause between two sends and the switch's latency plus delay */
#define RX_BATCH 2u /* frames checked between two chances to send, which bounds that pause */

static volatile uint32_t ring[RX_N][NIC_RXDESC_WORDS] __attribute__((section(".pktbuf"), aligned(16)));
static uint8_t rxbuf[RX_N][BUF] __attribute__((section(".pktbuf"), aligned(8)));
static uint8_t txbuf[TX_N][BUF] __attribute__((section(".pktbuf"), aligned(8)));

static uint32_t me, peer_tx, peer_rx;
static uint32_t good, dup_or_old;
static uint32_t seen_seq[(FWTEST_LINK_MAX_FRAMES + 31) / 32]; /* sequence numbers received */

/* Payload byte i of frame seq from src is (seq * 13 + i * 7 + src * 101) mod 256. Built and
 * checked a word at a time: four lanes added without carries between them (SWAR). */
static uint32_t lane_add(uint32_t a, uint32_t b)
{
    return ((a & 0x7F7F7F7Fu) + (b & 0x7F7F7F7Fu)) ^ ((a ^ b) & 0x80808080u);
}

static uint32_t payload_word(uint32_t seq, uint32_t i, uint32_t src)
{
    uint32_t b0 = (seq * 13u + i * 7u + src * 101u) & 0xFFu;
    return lane_add(b0 * 0x01010101u, 0x150E0700u); /* b0, b0+7, b0+14, b0+21 */
}

static uint8_t payload_byte(uint32_t seq, uint32_t i, uint32_t src)
{
    return (uint8_t)(seq * 13u + i * 7u + src * 101u);
}

static uint32_t frame_len(uint32_t seq)
{
    return HDR + 52u + (seq * 97u) % 1400u;
}

static void build(uint8_t *f, uint32_t seq)
{
    uint32_t len = frame_len(seq), plen = len - HDR;

    f[0] = (uint8_t)(peer_tx >> 8);
    f[1] = (uint8_t)peer_tx;
    f[2] = (uint8_t)(me >> 8);
    f[3] = (uint8_t)me;
    memcpy(f + 4, &seq, 4);
    memcpy(f + 8, &plen, 4);
    uint32_t i = 0, *w = (uint32_t *)(void *)(f + HDR); /* HDR is a multiple of 4 */
    for (; i + 4 <= plen; i += 4)
        *w++ = payload_word(seq, i, me);
    for (; i < plen; i++)
        f[HDR + i] = payload_byte(seq, i, me);
}

static void check_frame(const uint8_t *f, uint32_t len)
{
    uint32_t seq, plen;

    FWT_CHECK(len >= HDR, 3, "good frame shorter than its header");
    memcpy(&seq, f + 4, 4);
    memcpy(&plen, f + 8, 4);
    FWT_CHECK(((uint32_t)f[0] << 8 | f[1]) == me && ((uint32_t)f[2] << 8 | f[3]) == peer_rx, 3,
              "good frame with wrong addresses");
    FWT_CHECK(plen == len - HDR && len == frame_len(seq), 4, "good frame with wrong length");
    uint32_t i = 0;
    const uint32_t *w = (const uint32_t *)(const void *)(f + HDR);
    for (; i + 4 <= plen; i += 4)
        FWT_CHECK(*w++ == payload_word(seq, i, peer_rx), 5, "good frame with wrong payload");
    for (; i < plen; i++)
        FWT_CHECK(f[HDR + i] == payload_byte(seq, i, peer_rx), 5, "good frame with wrong payload");
    if (seq < FWTEST_LINK_MAX_FRAMES && !(seen_seq[seq / 32] & (1u << (seq % 32)))) {
        seen_seq[seq / 32] |= 1u << (seq % 32);
        good++;
    } else {
        dup_or_old++; /* duplicated by the switch: legal */
    }
}

static uint32_t mtime(void)
{
    return nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_LO);
}

int main(void)
{
    uint32_t frames = FWT_ARGS->frames, nodes = FWT_ARGS->nodes;
    uint32_t sent = 0, consumed = 0, done0, last_rx;

    FWT_CHECK(FWT_ARGS->magic == FWTEST_ARGS_MAGIC && nodes >= 2 && frames <= FWTEST_LINK_MAX_FRAMES, 1,
              "harness arguments");
    FWT_CHECK(nic_block_ok(MAC) && nic_block_ok(INTC) && nic_block_ok(TIMER), 1, "block ids");
    me = FWT_ARGS->node_id;
    FWT_CHECK(nic_rd(NIC_MAC_BASE, NIC_MAC_NODE_ID) == me, 1, "mac.node_id");
    peer_tx = (me + 1) % nodes;
    peer_rx = (me + nodes - 1) % nodes;

    for (uint32_t i = 0; i < RX_N; i++)
        ring[i][NIC_RXDESC_BUF_IDX] = FWT_SRAM_OFF(rxbuf[i]);
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_RING, FWT_SRAM_OFF((const void *)ring));
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_CFG,
           nic_bits(NIC_MAC_RX_CFG_ENTRIES_LOG2, RX_LOG2) | nic_bits(NIC_MAC_RX_CFG_BUF_SIZE, BUF));
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_TAIL, nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD)); /* all RX_N entries free */
    consumed = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD);
    nic_wr(NIC_MAC_BASE, NIC_MAC_CTRL, NIC_MAC_CTRL_TX_ENABLE_MASK | NIC_MAC_CTRL_RX_ENABLE_MASK);
    done0 = nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_STATUS), NIC_MAC_TX_STATUS_DONE);

    /* wake on frame received / sent (MEIP) and on the quiet timer (MTIP), with MIE = 0 */
    nic_wr(NIC_INTC_BASE, NIC_INTC_ENABLE, NIC_INTC_ENABLE_MAC_RX_MASK | NIC_INTC_ENABLE_MAC_TX_MASK);
    __asm__ volatile("csrci mstatus, 8\n\tcsrw mie, %0" ::"r"((1u << 11) | (1u << 7)));
    last_rx = mtime();

    for (uint32_t rounds = 0;; rounds++) {
        FWT_CHECK(rounds < 10000000u, 6, "link test did not finish");
        nic_wr(NIC_INTC_BASE, NIC_INTC_ACK, NIC_INTC_ACK_MAC_RX_MASK | NIC_INTC_ACK_MAC_TX_MASK);
        uint32_t head = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD);
        for (uint32_t batch = 0; consumed != head && batch < RX_BATCH; batch++) {
            volatile uint32_t *d = ring[consumed % RX_N];
            uint32_t st = d[NIC_RXDESC_STATUS_IDX];
            FWT_CHECK(nic_field(st, NIC_RXDESC_STATUS_PHASE) == (((consumed >> RX_LOG2) & 1u) ^ 1u), 2,
                      "descriptor phase");
            check_frame(rxbuf[consumed % RX_N], nic_field(st, NIC_RXDESC_STATUS_LEN));
            consumed++;
            nic_wr(NIC_MAC_BASE, NIC_MAC_RX_TAIL, consumed); /* entry returned */
            last_rx = mtime();
        }
        uint32_t txs = nic_rd(NIC_MAC_BASE, NIC_MAC_TX_STATUS);
        uint32_t txdone = (nic_field(txs, NIC_MAC_TX_STATUS_DONE) - done0) & 0xFFFFu;
        int progressed = 0;
        while (sent < frames && nic_field(txs, NIC_MAC_TX_STATUS_FREE) > 0 && sent - txdone < TX_N) {
            uint8_t *f = txbuf[sent % TX_N];
            build(f, sent);
            nic_wr(NIC_MAC_BASE, NIC_MAC_TX_ADDR, FWT_SRAM_OFF(f));
            nic_wr(NIC_MAC_BASE, NIC_MAC_TX_SUBMIT, nic_bits(NIC_MAC_TX_SUBMIT_LEN, frame_len(sent)));
            sent++;
            progressed = 1;
            txs = nic_rd(NIC_MAC_BASE, NIC_MAC_TX_STATUS);
        }
        if (progressed || consumed != head)
            continue;
        uint32_t now = mtime();
        if (sent == frames && txdone == sent && now - last_rx >= QUIET)
            break;
        nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu); /* no spurious match while updating */
        nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, last_rx + QUIET);
        nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI,
               nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_HI) + (last_rx + QUIET < now));
        if (nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD) == consumed)
            __asm__ volatile("wfi");
    }

    uint32_t ok = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_OK), bad = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_BAD_CRC);
    uint32_t runt = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_RUNT), over = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_OVERSIZE);
    uint32_t nobuf = nic_rd(NIC_MAC_BASE, NIC_MAC_RX_NOBUF);
    uint32_t seen = ok + bad + runt + over + nobuf;
    FWT_CHECK(ok == good + dup_or_old, 7, "mac.rx_ok differs from the frames the firmware took");
    FWT_CHECK(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_OK) == sent, 8, "mac.tx_ok differs from frames sent");
    printf("fw_nic_link: node %lu: sent %lu, received %lu distinct + %lu duplicates; MAC saw %lu: ok %lu, bad CRC "
           "%lu, runt %lu, oversize %lu, no buffer %lu\n",
           (unsigned long)me, (unsigned long)sent, (unsigned long)good, (unsigned long)dup_or_old, (unsigned long)seen,
           (unsigned long)ok, (unsigned long)bad, (unsigned long)runt, (unsigned long)over, (unsigned long)nobuf);
    ncp_test_value(FWTEST_LINK_VALUE(seen, bad, runt + over + nobuf));
    return 0;
}
