/*
 * fake_hal.c - the fake NIC behind hal.h for the host-native NCP (fake_hal.h). Each operation
 * does what its register sequence does on the NIC (firmware/hal/hal.c, hal.h; sim/rtl/nic).
 */
#include "fake_hal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal.h"
#include "nic_abi.h"
#include "ncp_rt.h"

/* ---- SRAM: offsets relative to this array; the firmware's own buffers (static arrays elsewhere
 * in the test program) get offsets outside it, signed 32-bit, and round-trip the same way. ---- */
static uint8_t sram[NIC_SRAM_SIZE] __attribute__((aligned(64)));

uint32_t hal_host_sram_off(const volatile void *p)
{
    intptr_t d = (intptr_t)(const volatile uint8_t *)p - (intptr_t)sram;
    assert_true(d >= INT32_MIN && d <= INT32_MAX);
    return (uint32_t)(int32_t)d;
}

void *hal_host_sram_ptr(uint32_t off)
{
    return sram + (int32_t)off;
}

void *fh_sram(uint32_t off)
{
    return hal_host_sram_ptr(off);
}

static uint8_t *host_mem;

uint8_t *fh_host(uint64_t pa, uint32_t len)
{
    assert_true(pa <= FH_HOST_MEM && len <= FH_HOST_MEM - pa);
    return host_mem + pa;
}

/* ---- state ---- */
static struct {
    uint16_t node;
    int bad_block;
    uint32_t now, cycles;
    uint32_t pending, enabled;
    int timer_on;
    uint32_t timer_at;
    uint32_t fw_state, info_off, fw_version;
    uint32_t irqs[8];
    /* DMA */
    struct fh_dma q[FH_DMA_QDEPTH];
    uint32_t q_n;
    struct {
        uint8_t tag, err;
    } cpl[FH_DMA_CPL_DEPTH];
    uint32_t cpl_head, cpl_n;
    int dma_hold, dma_enabled;
    uint64_t fail_lo, fail_hi;
    uint32_t fail_n;
    uint8_t fail_err;
    int bad_tag;
    struct fh_dma *log;
    uint32_t log_n, log_cap;
    /* MAC */
    uint32_t rx_ring, rx_log2, rx_buf_size, rx_head, rx_tail, rx_nobuf;
    int mac_on;
    struct {
        uint32_t off, len;
        uint8_t gate, tag; /* a gated frame (nic_mac_tx.v): waits for DMA request `tag` */
    } txq[FH_TXQ_DEPTH];
    uint32_t txq_n;
    uint16_t tx_done;
    struct {
        uint32_t off, len;
    } ctq[FH_TXCQ_DEPTH];               /* the control queue (tx_submit.ctl): leaves first */
    uint32_t ctq_n;
    uint16_t tx_cdone;
    uint32_t tx_voided;                 /* gated frames voided: their DMA failed */
    uint8_t tag_busy[256], tag_err[256]; /* per DMA tag: submitted, not completed / failed */
    int mac_hold;
    struct fh_frame *tx;
    uint32_t tx_n, tx_cap;
    /* doorbells: slot 0 cmd_pi, 1 ev_ci, 1 + p: endpoint p's sq_pi */
    uint32_t db_val[NIC_SENDQ_SLOTS + 1];
    uint8_t db_pend[NIC_SENDQ_SLOTS + 1];
    uint32_t db_rr; /* the last endpoint taken */
    struct {
        uint32_t page, off, data;
    } dbf[FH_DB_FIFO];
    uint32_t dbf_head, dbf_n, db_overflow, db_coalesced;
    /* fatal stops */
    jmp_buf *trap;
    uint32_t fatal_code;
} hw;

static FILE *trace;

void fh_trace(FILE *f)
{
    trace = f;
}

void fh_trace_note(const char *fmt, ...)
{
    va_list ap;

    if (!trace)
        return;
    va_start(ap, fmt);
    vfprintf(trace, fmt, ap);
    va_end(ap);
    fputc('\n', trace);
}

static void trace_bytes(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(trace, "%02x", p[i]);
}

void fh_reset(uint16_t node_id)
{
    free(hw.log);
    for (uint32_t i = 0; i < hw.tx_n; i++)
        free(hw.tx[i].data);
    free(hw.tx);
    memset(&hw, 0, sizeof hw);
    hw.node = node_id;
    hw.bad_block = -1;
    hw.now = 1000;
    if (!host_mem)
        host_mem = calloc(1, FH_HOST_MEM);
    else
        memset(host_mem, 0, FH_HOST_MEM);
    assert_non_null(host_mem);
    memset(sram, 0, sizeof sram);
}

/* ---- runtime (ncp_rt.h) ---- */
uint32_t ncp_rdcycle(void)
{
    return hw.cycles += 3; /* monotonic, deterministic: the fast-path cycle accounting has values */
}

uint32_t ncp_rdinstret(void)
{
    return hw.cycles;
}

void ncp_fatal(const char *why, uint32_t code)
{
    hw.fatal_code = code;
    hw.fw_state = 2; /* hostif.fw_state: fatal */
    if (hw.trap)
        longjmp(*hw.trap, 1);
    fail_msg("the NCP stopped: %s (code %#x)", why, (unsigned)code);
    abort(); /* not reached: fail_msg leaves the test */
}

/* The console: lines to stderr (and into the trace). */
static char con_line[256];
static size_t con_n;

void ncp_console_putc(char c)
{
    if (c != '\n' && con_n < sizeof con_line - 1) {
        con_line[con_n++] = c;
        return;
    }
    con_line[con_n] = 0;
    fprintf(stderr, "%s\n", con_line);
    if (trace)
        fh_trace_note("console %s", con_line);
    con_n = 0;
}

void ncp_console_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        ncp_console_putc(s[i]);
}

void ncp_console_puts(const char *s)
{
    ncp_console_write(s, strlen(s));
}

void ncp_console_dec(uint32_t v)
{
    char b[12];
    int n = snprintf(b, sizeof b, "%u", (unsigned)v);
    ncp_console_write(b, (size_t)n);
}

int fh_try(void (*fn)(void), uint32_t *code)
{
    jmp_buf env, *outer = hw.trap;

    if (setjmp(env)) {
        hw.trap = outer;
        *code = hw.fatal_code;
        return 1;
    }
    hw.trap = &env;
    fn();
    hw.trap = outer;
    return 0;
}

void fh_bad_block(int bad)
{
    hw.bad_block = bad;
}

/* ---- boot, intc, timer, hostif ---- */
int hal_check_blocks(void)
{
    return hw.bad_block;
}

void hal_init(uint32_t events)
{
    hal_timer_off();
    hw.dma_enabled = 1;
    hw.enabled = events;
}

uint32_t hal_take_events(void)
{
    uint32_t p = hw.pending;
    hw.pending = 0;
    return p;
}

static struct {
    int armed, fired;
    uint32_t page, off, data;
} peek_db;

void fh_doorbell_at_peek(uint32_t page, uint32_t offset, uint32_t data)
{
    peek_db.armed = 1;
    peek_db.fired = 0;
    peek_db.page = page;
    peek_db.off = offset;
    peek_db.data = data;
}

int fh_doorbell_fired(void)
{
    return peek_db.fired;
}

uint32_t hal_events_pending(void)
{
    if (peek_db.armed) { /* the doorbell arrives now, during the pass */
        peek_db.armed = 0;
        peek_db.fired = 1;
        fh_doorbell(peek_db.page, peek_db.off, peek_db.data);
    }
    return hw.pending;
}

void hal_ack_events(uint32_t events)
{
    hw.pending &= ~events;
}

void hal_raise_events(uint32_t events)
{
    hw.pending |= events;
}

void hal_sleep(void)
{
}

uint32_t hal_now(void)
{
    return hw.now;
}

uint32_t fh_now(void)
{
    return hw.now;
}

void fh_advance(uint32_t cycles)
{
    hw.now += cycles;
}

void hal_timer_at(uint32_t deadline)
{
    hw.timer_on = 1;
    hw.timer_at = deadline;
    if (trace)
        fh_trace_note("timer at +%u", (unsigned)(deadline - hw.now));
}

void hal_timer_off(void)
{
    if (trace && hw.timer_on)
        fh_trace_note("timer off");
    hw.timer_on = 0;
}

int fh_timer_armed(uint32_t *deadline)
{
    if (hw.timer_on && deadline)
        *deadline = hw.timer_at;
    return hw.timer_on;
}

void hal_host_irq(uint32_t causes)
{
    for (unsigned b = 0; b < 8; b++)
        if (causes & 1u << b)
            hw.irqs[b]++;
    if (trace)
        fh_trace_note("irq %#x", (unsigned)causes);
}

uint32_t fh_irqs(uint32_t cause_mask)
{
    uint32_t n = 0;
    for (unsigned b = 0; b < 8; b++)
        if (cause_mask & 1u << b)
            n += hw.irqs[b];
    return n;
}

void hal_publish_info(uint32_t info_off, uint32_t version)
{
    hw.info_off = info_off;
    hw.fw_version = version;
}

uint32_t fh_info_off(void)
{
    return hw.info_off;
}

void hal_fw_state(uint32_t state)
{
    hw.fw_state = state & NIC_HOSTIF_FW_STATE_STATE_MASK;
    if (trace)
        fh_trace_note("fw_state %u", (unsigned)state);
}

uint32_t fh_fw_state(void)
{
    return hw.fw_state;
}

uint16_t hal_node_id(void)
{
    return hw.node;
}

/* The fake MAC sends a frame whole when submitted (its payload in): 10 Gb/s, cut-through moot. */
uint32_t hal_mac_link_bits(void)
{
    return 50;
}

void hal_mac_tx_ct(uint32_t thresh)
{
    (void)thresh;
}

/* ---- DMA engine ---- */
uint32_t hal_dma_free(void)
{
    return FH_DMA_QDEPTH - hw.q_n;
}

void hal_dma_submit(uint32_t sram_off, uint64_t host, uint32_t len, int to_host, uint8_t tag)
{
    /* as nic_dma.v: a submit into a full queue is dropped (the NCP must never do it) */
    assert_true(hw.q_n < FH_DMA_QDEPTH);
    hw.q[hw.q_n++] = (struct fh_dma){.host = host, .sram = sram_off, .len = len, .to_host = (uint8_t)(to_host != 0),
                                     .tag = tag};
    hw.tag_busy[tag] = 1;
}

uint32_t hal_dma_cpl_count(void)
{
    return hw.cpl_n;
}

void hal_dma_pop_head(uint8_t *tag, uint8_t *err)
{
    assert_true(hw.cpl_n > 0); /* hal.h: only when the count said there is one */
    *tag = hw.cpl[hw.cpl_head].tag;
    *err = hw.cpl[hw.cpl_head].err;
    hw.cpl_head = (hw.cpl_head + 1) % FH_DMA_CPL_DEPTH;
    hw.cpl_n--;
}

void fh_dma_hold(int hold)
{
    hw.dma_hold = hold;
}

void fh_dma_fail(uint64_t lo, uint64_t hi, uint32_t n, uint8_t err)
{
    hw.fail_lo = lo;
    hw.fail_hi = hi;
    hw.fail_n = n;
    hw.fail_err = err;
}

void fh_dma_bad_tag(int n)
{
    hw.bad_tag = n;
}

uint32_t fh_dma_queued(void)
{
    return hw.q_n;
}

uint32_t fh_dma_count(void)
{
    return hw.log_n;
}

const struct fh_dma *fh_dma_log(uint32_t i)
{
    assert_true(i < hw.log_n);
    return &hw.log[i];
}

/* The oldest request, completed: data moved (unless it fails), completion queued, intc raised. */
static int dma_step(void)
{
    if (hw.dma_hold || !hw.dma_enabled || !hw.q_n || hw.cpl_n == FH_DMA_CPL_DEPTH)
        return 0;
    struct fh_dma r = hw.q[0];
    memmove(&hw.q[0], &hw.q[1], (hw.q_n - 1) * sizeof r);
    hw.q_n--;
    uint32_t len = r.len ? r.len : 65536u;
    if (len > 65536u)
        r.err = FH_DMA_LEN_ERR;
    else if (r.host > FH_HOST_MEM || len > FH_HOST_MEM - r.host)
        r.err = FH_DMA_HOST_ERR; /* no memory there: the host answers with an error */
    else if (hw.fail_n && r.host < hw.fail_hi && r.host + len > hw.fail_lo) {
        hw.fail_n--;
        r.err = hw.fail_err;
    }
    uint8_t *s = hal_host_sram_ptr(r.sram);
    if (!r.err) {
        if (r.to_host)
            memcpy(host_mem + r.host, s, len);
        else
            memcpy(s, host_mem + r.host, len);
    }
    if (hw.log_n == hw.log_cap) {
        hw.log_cap = hw.log_cap ? 2 * hw.log_cap : 256;
        hw.log = realloc(hw.log, hw.log_cap * sizeof *hw.log);
        assert_non_null(hw.log);
    }
    hw.log[hw.log_n++] = r;
    if (trace) {
        fprintf(trace, "dma tag %u %s host %#llx len %u err %u data ", (unsigned)r.tag, r.to_host ? "to-host" : "from-host",
                (unsigned long long)r.host, (unsigned)len, (unsigned)r.err);
        if (!r.err)
            trace_bytes(r.to_host ? s : host_mem + r.host, len);
        fputc('\n', trace);
    }
    if (hw.bad_tag > 0) {
        hw.bad_tag--;
        r.tag ^= 0x55;
    }
    hw.tag_busy[r.tag] = 0; /* (a corrupted tag, fh_dma_bad_tag: the MAC sees what the NCP sees) */
    hw.tag_err[r.tag] = r.err != 0;
    hw.cpl[(hw.cpl_head + hw.cpl_n) % FH_DMA_CPL_DEPTH].tag = r.tag;
    hw.cpl[(hw.cpl_head + hw.cpl_n) % FH_DMA_CPL_DEPTH].err = r.err;
    hw.cpl_n++;
    hw.pending |= HAL_EV_DMA;
    return 1;
}

/* ---- MAC ---- */
void hal_mac_rx_init(volatile uint32_t *ring, uint32_t log2n, const uint8_t *bufs, uint32_t buf_size)
{
    for (uint32_t i = 0; i < (1u << log2n); i++) {
        ring[i * 4] = HAL_SRAM_OFF(bufs + i * buf_size);
        ring[i * 4 + 1] = 0;
    }
    hw.rx_ring = HAL_SRAM_OFF(ring);
    hw.rx_log2 = log2n;
    hw.rx_buf_size = buf_size;
    hw.rx_tail = hw.rx_head;
    hw.mac_on = 1;
}

uint32_t hal_mac_rx_head(void)
{
    return hw.rx_head;
}

void hal_mac_rx_release(uint32_t tail)
{
    /* the firmware returns entries it owns: never beyond what the MAC filled */
    assert_true(tail - hw.rx_tail <= hw.rx_head - hw.rx_tail);
    hw.rx_tail = tail;
}

int fh_inject(const void *frame, uint32_t len)
{
    uint32_t n = 1u << hw.rx_log2;

    assert_true(hw.mac_on);
    if (hw.rx_head - hw.rx_tail >= n || len > hw.rx_buf_size || len > FH_MAX_FRAME) {
        hw.rx_nobuf++;
        return 0;
    }
    uint32_t *d = hal_host_sram_ptr(hw.rx_ring + (hw.rx_head % n) * NIC_RXDESC_SIZE);
    memcpy(hal_host_sram_ptr(d[NIC_RXDESC_BUF / 4]), frame, len);
    d[NIC_RXDESC_STATUS / 4] = nic_bits(NIC_RXDESC_STATUS_LEN, len) |
                               nic_bits(NIC_RXDESC_STATUS_PHASE, ((hw.rx_head >> hw.rx_log2) & 1u) ^ 1u);
    d[NIC_RXDESC_SEQ / 4] = hw.rx_head;
    d[NIC_RXDESC_CRC / 4] = 0;
    hw.rx_head++;
    hw.pending |= HAL_EV_RX;
    return 1;
}

uint32_t fh_rx_nobuf(void)
{
    return hw.rx_nobuf;
}

uint32_t hal_mac_tx_free(void)
{
    return FH_TXQ_DEPTH - hw.txq_n;
}

void hal_mac_tx_submit(const void *frame, uint32_t len)
{
    assert_true(hw.txq_n < FH_TXQ_DEPTH); /* the NCP counts the free slots */
    hw.txq[hw.txq_n].off = HAL_SRAM_OFF(frame);
    hw.txq[hw.txq_n].len = len;
    hw.txq[hw.txq_n].gate = 0;
    hw.txq_n++;
}

void hal_mac_tx_submit_gated(const void *frame, uint32_t len, uint8_t tag)
{
    hal_mac_tx_submit(frame, len);
    hw.txq[hw.txq_n - 1].gate = 1;
    hw.txq[hw.txq_n - 1].tag = tag;
}

uint32_t fh_mac_tx_voided(void)
{
    return hw.tx_voided;
}

uint16_t hal_mac_tx_done(void)
{
    return hw.tx_done;
}

void hal_mac_tx_submit_ctl(const void *frame, uint32_t len)
{
    assert_true(hw.ctq_n < FH_TXCQ_DEPTH); /* the NCP never has more control frames out */
    hw.ctq[hw.ctq_n].off = HAL_SRAM_OFF(frame);
    hw.ctq[hw.ctq_n].len = len;
    hw.ctq_n++;
}

uint32_t hal_mac_tx_ctl_free(void)
{
    return FH_TXCQ_DEPTH - hw.ctq_n;
}

uint16_t hal_mac_tx_ctl_done(void)
{
    return hw.tx_cdone;
}

void fh_mac_hold(int hold)
{
    hw.mac_hold = hold;
}

/* The oldest queued frame goes on the link: its bytes as they are in SRAM now. */
static int mac_step(void)
{
    uint32_t off, len, gate = 0, tag = 0;
    int ctl = 0;

    if (hw.mac_hold)
        return 0;
    if (hw.ctq_n) { /* the control queue's head goes first */
        off = hw.ctq[0].off;
        len = hw.ctq[0].len;
        memmove(&hw.ctq[0], &hw.ctq[1], (hw.ctq_n - 1) * sizeof hw.ctq[0]);
        hw.ctq_n--;
        ctl = 1;
    } else {
        if (!hw.txq_n || (hw.txq[0].gate && hw.tag_busy[hw.txq[0].tag]))
            return 0; /* (a gated head waits for its payload's DMA, and the frames behind it) */
        off = hw.txq[0].off;
        len = hw.txq[0].len;
        gate = hw.txq[0].gate;
        tag = hw.txq[0].tag;
        memmove(&hw.txq[0], &hw.txq[1], (hw.txq_n - 1) * sizeof hw.txq[0]);
        hw.txq_n--;
    }
    if (gate && hw.tag_err[tag]) { /* voided: nothing goes on the link */
        if (trace)
            fprintf(trace, "tx voided len %u (dma tag %u failed)\n", (unsigned)len, (unsigned)tag);
        hw.tx_voided++;
        hw.tx_done++;
        hw.pending |= HAL_EV_TX;
        return 1;
    }
    if (hw.tx_n == hw.tx_cap) {
        hw.tx_cap = hw.tx_cap ? 2 * hw.tx_cap : 64;
        hw.tx = realloc(hw.tx, hw.tx_cap * sizeof *hw.tx);
        assert_non_null(hw.tx);
    }
    struct fh_frame *f = &hw.tx[hw.tx_n++];
    f->len = len;
    f->data = malloc(len ? len : 1);
    assert_non_null(f->data);
    memcpy(f->data, hal_host_sram_ptr(off), len);
    if (trace) {
        fprintf(trace, "tx len %u ", (unsigned)len);
        trace_bytes(f->data, len);
        fputc('\n', trace);
    }
    if (ctl)
        hw.tx_cdone++;
    else
        hw.tx_done++;
    hw.pending |= HAL_EV_TX;
    return 1;
}

uint32_t fh_dma_complete(uint32_t n)
{
    int hold = hw.dma_hold;
    uint32_t k = 0;

    hw.dma_hold = 0;
    while (k < n && dma_step())
        k++;
    hw.dma_hold = hold;
    return k;
}

uint32_t fh_mac_send(uint32_t n)
{
    int hold = hw.mac_hold;
    uint32_t k = 0;

    hw.mac_hold = 0;
    while (k < n && mac_step())
        k++;
    hw.mac_hold = hold;
    return k;
}

uint32_t fh_tx_count(void)
{
    return hw.tx_n;
}

const struct fh_frame *fh_tx(uint32_t i)
{
    assert_true(i < hw.tx_n);
    return &hw.tx[i];
}

/* ---- doorbells (nic_doorbell.v) ---- */
static int db_slot(uint32_t page, uint32_t off)
{
    if (page == 0 && off == NIC_DBPAGE_CMD_PI)
        return 0;
    if (page == 0 && off == NIC_DBPAGE_EV_CI)
        return 1;
    if (page >= 1 && page < NIC_SENDQ_SLOTS && off == NIC_DBPAGE_SQ_PI)
        return (int)(1 + page);
    return -1;
}

void fh_doorbell(uint32_t page, uint32_t off, uint32_t data)
{
    int s = db_slot(page, off);

    if (page >= 1 && page < NIC_SENDQ_SLOTS && off < NIC_SENDQ_STRIDE) { /* a send queue write */
        memcpy(sram + NIC_SRAM_SENDQ_OFFSET + page * NIC_SENDQ_STRIDE + off, &data, 4);
        return;
    }
    if (s >= 0) {
        if (hw.db_pend[s])
            hw.db_coalesced++;
        hw.db_val[s] = data;
        hw.db_pend[s] = 1;
    } else if (hw.dbf_n == FH_DB_FIFO) {
        hw.db_overflow++;
        return;
    } else {
        uint32_t i = (hw.dbf_head + hw.dbf_n++) % FH_DB_FIFO;
        hw.dbf[i].page = page;
        hw.dbf[i].off = off;
        hw.dbf[i].data = data;
    }
    hw.pending |= HAL_EV_DOORBELL;
}

int hal_db_pop(uint32_t *page, uint32_t *offset, uint32_t *data)
{
    /* the driver's slots first, then the endpoints' round-robin after the last taken, then the FIFO */
    for (int s = 0; s < 2; s++)
        if (hw.db_pend[s]) {
            hw.db_pend[s] = 0;
            *page = 0;
            *offset = s == 0 ? NIC_DBPAGE_CMD_PI : NIC_DBPAGE_EV_CI;
            *data = hw.db_val[s];
            return 1;
        }
    for (uint32_t k = 1; k < NIC_SENDQ_SLOTS; k++) {
        uint32_t p = 1 + (hw.db_rr + k - 1) % (NIC_SENDQ_SLOTS - 1);
        if (hw.db_pend[1 + p]) {
            hw.db_pend[1 + p] = 0;
            hw.db_rr = p;
            *page = p;
            *offset = NIC_DBPAGE_SQ_PI;
            *data = hw.db_val[1 + p];
            return 1;
        }
    }
    if (hw.dbf_n) {
        *page = hw.dbf[hw.dbf_head].page;
        *offset = hw.dbf[hw.dbf_head].off;
        *data = hw.dbf[hw.dbf_head].data;
        hw.dbf_head = (hw.dbf_head + 1) % FH_DB_FIFO;
        hw.dbf_n--;
        return 1;
    }
    return 0;
}

void hal_db_counts(uint32_t *dropped, uint32_t *coalesced)
{
    *dropped = hw.db_overflow;
    *coalesced = hw.db_coalesced;
}

/* ---- the main loop ---- */
void ncp_run_once(void);

unsigned fh_run(void)
{
    unsigned passes = 0;

    for (;;) {
        assert_true(++passes < 1000000u); /* a livelock fails the test */
        ncp_run_once();
        if (hw.pending & hw.enabled)
            continue; /* hal_sleep does not sleep */
        /* asleep: the hardware works; the core wakes on its events or the timer */
        int woke = 0;
        while (dma_step())
            woke = 1;
        while (mac_step())
            woke = 1;
        if (woke)
            continue;
        if (hw.timer_on && (int32_t)(hw.now - hw.timer_at) >= 0)
            continue; /* MTIP: wfi returns */
        return passes;
    }
}
