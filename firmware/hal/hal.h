/*
 * hal.h - the NCP's thin hardware layer: typed operations over the NIC blocks (nic_mmio.h).
 * The only firmware code besides the runtime that touches registers; portable modules
 * (firmware/lib) never include it.
 *
 * Contracts: every operation is bounded (no wait on hardware without a limit); a submit that the
 * hardware cannot take returns an error and changes nothing. Main-loop context only.
 */
#ifndef NCP_HAL_H
#define NCP_HAL_H

#include <stdint.h>

#include "nic_memmap.h"
#include "nic_mmio.h"

/*
 * The seam: on the core the register operations below are static inline. The host-native build
 * (NCP_HOST: tests/fwhost) declares the same operations extern and implements them with a fake NIC
 * (tests/fwhost/fake_hal.c); SRAM offsets there are relative to the fake's SRAM array and
 * round-trip through HAL_SRAM_PTR for the firmware's own buffers too.
 */
#ifdef NCP_HOST
uint32_t hal_host_sram_off(const volatile void *p);
void *hal_host_sram_ptr(uint32_t off);
#define HAL_SRAM_OFF(p) hal_host_sram_off(p)
#define HAL_SRAM_PTR(off) hal_host_sram_ptr(off)
#else
#define HAL_SRAM_OFF(p) ((uint32_t)(uintptr_t)(p) - NIC_SRAM_BASE)
#define HAL_SRAM_PTR(off) ((void *)(uintptr_t)(NIC_SRAM_BASE + (off)))
#endif

/* Interrupt sources the NCP waits on (intc bits). */
#define HAL_EV_DMA NIC_INTC_PENDING_DMA_MASK
#define HAL_EV_RX NIC_INTC_PENDING_MAC_RX_MASK
#define HAL_EV_TX NIC_INTC_PENDING_MAC_TX_MASK
#define HAL_EV_DOORBELL NIC_INTC_PENDING_DOORBELL_MASK
#define HAL_EV_HOST NIC_INTC_PENDING_HOST_MASK
#define HAL_EV_ALL (HAL_EV_DMA | HAL_EV_RX | HAL_EV_TX | HAL_EV_DOORBELL | HAL_EV_HOST)

/* Checks every block's ID and major version; returns the index of the first bad one, or -1. */
int hal_check_blocks(void);

/* Enables the DMA engine and the intc sources in `events`; the core sleeps with MIE = 0. */
void hal_init(uint32_t events);

/* Top half: acknowledges and returns the pending intc sources (posted to the event loop). */
uint32_t hal_take_events(void);

/* Sets intc sources pending again: a bottom half that left work behind (budget) gets another pass. */
#ifndef NCP_HOST
static inline void hal_raise_events(uint32_t events)
{
    nic_wr(NIC_INTC_BASE, NIC_INTC_RAISE, events);
}
#else
void hal_raise_events(uint32_t events);
#endif

/* The intc sources pending now (not acknowledged): an event arrived since the pass took them. */
#ifndef NCP_HOST
static inline uint32_t hal_events_pending(void)
{
    return nic_rd(NIC_INTC_BASE, NIC_INTC_PENDING);
}
/* Acknowledges intc sources taken outside hal_take_events (a doorbell served in mid-pass). */
static inline void hal_ack_events(uint32_t events)
{
    nic_wr(NIC_INTC_BASE, NIC_INTC_ACK, events);
}
#else
uint32_t hal_events_pending(void);
void hal_ack_events(uint32_t events);
#endif

/* Sleeps in wfi until an enabled source or the timer is pending (MIE stays 0: no trap). */
void hal_sleep(void);

/* Time: mtime low word (cycles); a timer wake-up at `deadline` (wrap-safe, 32-bit). */
#ifndef NCP_HOST
static inline uint32_t hal_now(void)
{
    return nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_LO);
}
#else
uint32_t hal_now(void);
#endif
void hal_timer_at(uint32_t deadline);
void hal_timer_off(void);

/* DMA engine. */
#ifndef NCP_HOST
static inline uint32_t hal_dma_free(void)
{
    return nic_field(nic_rd(NIC_DMA_BASE, NIC_DMA_STATUS), NIC_DMA_STATUS_REQ_FREE);
}
static inline void hal_dma_submit(uint32_t sram_off, uint64_t host, uint32_t len, int to_host, uint8_t tag)
{
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SRAM, sram_off);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_LO, (uint32_t)host);
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_HOST_HI, (uint32_t)(host >> 32));
    nic_wr(NIC_DMA_BASE, NIC_DMA_REQ_SUBMIT,
           nic_bits(NIC_DMA_REQ_SUBMIT_LEN, len) | nic_bits(NIC_DMA_REQ_SUBMIT_TO_HOST, to_host ? 1 : 0) |
               nic_bits(NIC_DMA_REQ_SUBMIT_TAG, tag));
}
#else
uint32_t hal_dma_free(void);
void hal_dma_submit(uint32_t sram_off, uint64_t host, uint32_t len, int to_host, uint8_t tag);
#endif
/* Completions waiting; hal_dma_pop_head pops one (only when the count said there is one). */
#ifndef NCP_HOST
static inline uint32_t hal_dma_cpl_count(void)
{
    return nic_field(nic_rd(NIC_DMA_BASE, NIC_DMA_STATUS), NIC_DMA_STATUS_CPL_COUNT);
}
static inline void hal_dma_pop_head(uint8_t *tag, uint8_t *err)
{
    uint32_t c = nic_rd(NIC_DMA_BASE, NIC_DMA_CPL_HEAD);
    nic_wr(NIC_DMA_BASE, NIC_DMA_CPL_POP, 1);
    *tag = (uint8_t)nic_field(c, NIC_DMA_CPL_HEAD_TAG);
    *err = (uint8_t)nic_field(c, NIC_DMA_CPL_HEAD_ERR);
}
#else
uint32_t hal_dma_cpl_count(void);
void hal_dma_pop_head(uint8_t *tag, uint8_t *err);
#endif

/* MAC. */
void hal_mac_rx_init(volatile uint32_t *ring, uint32_t log2n, const uint8_t *bufs, uint32_t buf_size);
#ifndef NCP_HOST
static inline uint32_t hal_mac_rx_head(void)
{
    return nic_rd(NIC_MAC_BASE, NIC_MAC_RX_HEAD);
}
static inline void hal_mac_rx_release(uint32_t tail)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_RX_TAIL, tail);
}
static inline uint32_t hal_mac_tx_free(void)
{
    return nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_STATUS), NIC_MAC_TX_STATUS_FREE);
}
static inline void hal_mac_tx_submit(const void *frame, uint32_t len)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_ADDR, HAL_SRAM_OFF(frame));
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_SUBMIT, nic_bits(NIC_MAC_TX_SUBMIT_LEN, len));
}
/* Frame `len` bytes at `frame`, gated (nic_mac_tx.v): it waits in the MAC's queue (and the frames
 * behind it) until the DMA request tagged `tag`, submitted before this call, has completed; it is
 * voided (not sent, counted done and in tx_errors) if that request failed. */
static inline void hal_mac_tx_submit_gated(const void *frame, uint32_t len, uint8_t tag)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_ADDR, HAL_SRAM_OFF(frame));
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_SUBMIT,
           nic_bits(NIC_MAC_TX_SUBMIT_LEN, len) | nic_bits(NIC_MAC_TX_SUBMIT_GATE, 1) | nic_bits(NIC_MAC_TX_SUBMIT_TAG, tag));
}
static inline uint16_t hal_mac_tx_done(void)
{
    return (uint16_t)nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_STATUS), NIC_MAC_TX_STATUS_DONE);
}
/* Control frame `len` bytes at `frame` into the MAC's control queue (nic_mac_tx.v): never gated,
 * it leaves before any frame of the data queue, so it never waits behind a data frame waiting for
 * its payload. Counted apart: hal_mac_tx_ctl_free, hal_mac_tx_ctl_done. */
static inline void hal_mac_tx_submit_ctl(const void *frame, uint32_t len)
{
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_ADDR, HAL_SRAM_OFF(frame));
    nic_wr(NIC_MAC_BASE, NIC_MAC_TX_SUBMIT, nic_bits(NIC_MAC_TX_SUBMIT_LEN, len) | nic_bits(NIC_MAC_TX_SUBMIT_CTL, 1));
}
static inline uint32_t hal_mac_tx_ctl_free(void)
{
    return nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_CTL_STATUS), NIC_MAC_TX_CTL_STATUS_FREE);
}
static inline uint16_t hal_mac_tx_ctl_done(void)
{
    return (uint16_t)nic_field(nic_rd(NIC_MAC_BASE, NIC_MAC_TX_CTL_STATUS), NIC_MAC_TX_CTL_STATUS_DONE);
}
#else
uint32_t hal_mac_rx_head(void);
void hal_mac_rx_release(uint32_t tail);
uint32_t hal_mac_tx_free(void);
void hal_mac_tx_submit(const void *frame, uint32_t len);
void hal_mac_tx_submit_gated(const void *frame, uint32_t len, uint8_t tag);
uint16_t hal_mac_tx_done(void);
void hal_mac_tx_submit_ctl(const void *frame, uint32_t len);
uint32_t hal_mac_tx_ctl_free(void);
uint16_t hal_mac_tx_ctl_done(void);
#endif
uint16_t hal_node_id(void);
/* The link's rate: bits per NIC clock cycle (mac.link_rate.bits; 50 = 10 Gb/s at 200 MHz). */
uint32_t hal_mac_link_bits(void);
/* Cut-through of gated frames (mac.tx_ct, nic_mac_tx.v): a gated frame may start once `thresh`
 * bytes of it (from its start) are in SRAM, before its DMA request completed; 0: it waits for
 * the completion. */
void hal_mac_tx_ct(uint32_t thresh);

/* Doorbells: 1 with page/offset/data of the oldest, or 0. */
int hal_db_pop(uint32_t *page, uint32_t *offset, uint32_t *data);

/* Host interrupt causes (NIC_HOSTIF_IRQ_RAISE_*_MASK). */
#ifndef NCP_HOST
static inline void hal_host_irq(uint32_t causes)
{
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_IRQ_RAISE, causes);
}

/* The firmware info block's SRAM offset and the firmware version, for the driver. */
static inline void hal_publish_info(uint32_t info_off, uint32_t version)
{
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_INFO, info_off);
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_VERSION, version);
}

/* The doorbell block's counters: writes dropped on FIFO overflow, writes coalesced. */
static inline void hal_db_counts(uint32_t *dropped, uint32_t *coalesced)
{
    *dropped = nic_field(nic_rd(NIC_DOORBELL_BASE, NIC_DOORBELL_STATUS), NIC_DOORBELL_STATUS_OVERFLOW);
    *coalesced = nic_rd(NIC_DOORBELL_BASE, NIC_DOORBELL_COALESCED);
}

static inline void hal_fw_state(uint32_t state)
{
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_STATE, nic_bits(NIC_HOSTIF_FW_STATE_STATE, state));
}
#else
void hal_host_irq(uint32_t causes);
void hal_publish_info(uint32_t info_off, uint32_t version);
void hal_db_counts(uint32_t *dropped, uint32_t *coalesced);
void hal_fw_state(uint32_t state);
#endif

#endif /* NCP_HAL_H */
