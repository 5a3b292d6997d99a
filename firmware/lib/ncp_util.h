/*
 * ncp_util.h - small helpers every NCP module uses: saturating counters, wrap-safe sequence
 * comparison, internal assertions, little-endian field access. Portable (no register access):
 * compiled for the core and host-native for the unit tests.
 *
 * Two kinds of checks (STYLE.md 10): input from outside (host, network, hardware) is validated
 * and answered with a documented error by the caller; NCP_ASSERT is for internal invariants only
 * and routes to ncp_on_assert(), which the firmware implements as a fatal stop (module + id in
 * the mailbox and hostif.fw_state) and the unit tests as a test failure.
 */
#ifndef NCP_UTIL_H
#define NCP_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Module ids for assertions (reported as module << 8 | id). */
enum ncp_module {
    NCP_MOD_LKC = 1,
    NCP_MOD_XPORT = 2,
    NCP_MOD_PKT = 3,
    NCP_MOD_MISS = 4,
    NCP_MOD_HAL = 5,
    NCP_MOD_TX = 6, /* tx.c, segment.c (the send side) */
    NCP_MOD_RX = 7, /* rx.c and the roles it dispatches to */
    NCP_MOD_CMD = 8,
    NCP_MOD_MAIN = 9,
};

/* On the NIC's core the handler is a fatal stop (firmware/src/loop.c and the test images; the
 * compiler checks they never return): declared so, an assertion on a fast path costs it no saved
 * registers. Host-native unit tests record a failure instead. */
#if defined(__riscv)
__attribute__((noreturn))
#endif
void ncp_on_assert(unsigned module, unsigned id);

#define NCP_ASSERT(mod, id, cond)             \
    do {                                      \
        if (!(cond))                          \
            ncp_on_assert((mod), (id));       \
    } while (0)

static inline void ncp_sat_inc(uint32_t *c)
{
    if (*c != UINT32_MAX)
        (*c)++;
}

static inline void ncp_sat_add(uint32_t *c, uint32_t n)
{
    *c = (*c + n < *c) ? UINT32_MAX : *c + n;
}

/*
 * Sequence numbers (and timer ticks) are 32-bit and free-running; a precedes b when (b - a) is in
 * (0, 2^31). Two numbers exactly 2^31 apart are unordered: neither precedes the other (a plain
 * signed difference would say "less than" both ways), so a window rule "x before y" never holds
 * for both orders. Code must not read !seq_lt(a, b) as "b precedes or equals a": use seq_le.
 */
static inline int seq_lt(uint32_t a, uint32_t b)
{
    return (b - a) - 1u < 0x7FFFFFFFu;
}

static inline int seq_le(uint32_t a, uint32_t b)
{
    return b - a < 0x80000000u;
}

/* s is in the half-open window [lo, hi) of at most 2^31 numbers (hi - lo <= 2^31). */
static inline int seq_in(uint32_t s, uint32_t lo, uint32_t hi)
{
    return s - lo < hi - lo;
}

static inline uint16_t ncp_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ncp_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void ncp_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ncp_st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif /* NCP_UTIL_H */
