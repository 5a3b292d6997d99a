/*
 * ncp_rt: the firmware runtime shared by the NCP and every firmware test image.
 *
 * Startup (rt/start.S) sets gp/sp/mtvec, copies .data, zeroes .bss and calls main(); returning
 * from main() exits through _exit(). Traps enter ncp_trap_entry, which saves the integer registers
 * in a struct ncp_trap_frame on the stack and calls the installed hook; a trap the hook does not
 * claim is fatal: it is reported on the console, in the test mailbox and in hostif.fw_state, and
 * the core halts in `wfi` with every interrupt disabled (a diagnosable, quiescent state).
 *
 * Context: everything here may be called from main-loop context; ncp_fatal() also from a trap.
 */
#ifndef NCP_RT_H
#define NCP_RT_H

#include <stddef.h>
#include <stdint.h>

/* Saved by ncp_trap_entry; x[0] is unused (always zero). Layout is fixed by rt/start.S. */
struct ncp_trap_frame {
    uint32_t x[32];
    uint32_t mepc;
    uint32_t mcause;
    uint32_t mtval;
    uint32_t mstatus;
};

/*
 * A trap hook returns nonzero when it handled the trap (it may change frame->mepc and registers,
 * which are restored on return), zero to let the runtime treat it as fatal.
 */
typedef int (*ncp_trap_hook_t)(struct ncp_trap_frame *frame);

void ncp_set_trap_hook(ncp_trap_hook_t hook);

/* Number of traps taken since reset, by kind (saturating). */
struct ncp_trap_counters {
    uint32_t interrupts;
    uint32_t exceptions;
    uint32_t unhandled;
};
extern struct ncp_trap_counters ncp_trap_count;

/* Debug console. */
void ncp_console_putc(char c);
void ncp_console_write(const char *s, size_t len);
void ncp_console_puts(const char *s);
/* Decimal, without newlib's printf (the NCP image links no stdio: its .text budget). */
void ncp_console_dec(uint32_t v);

/* Test mailbox: report the outcome of a firmware test image (ends the run in the harness). */
void ncp_test_pass(void);
void ncp_test_fail(uint32_t code);
void ncp_test_value(uint32_t value);

/* Stops the firmware: console + mailbox + hostif.fw_state, then sleeps forever. */
__attribute__((noreturn)) void ncp_fatal(const char *why, uint32_t code);

/*
 * Publishes hostif.fw_state = {state, code} (state: NIC_HOSTIF_FW_STATE_STATE_*, nic_regs.h), masks
 * every interrupt and sleeps in wfi for good. Used by ncp_fatal() and by _exit().
 */
__attribute__((noreturn)) void ncp_halt(uint32_t state, uint32_t code);

/* Wrap-safe cycle counter reads (the host-native build, NCP_HOST, implements them in its fake
 * NIC: tests/fwhost/fake_hal.c, as it implements ncp_fatal: a failed test). */
#ifdef NCP_HOST
uint32_t ncp_rdcycle(void);
uint32_t ncp_rdinstret(void);
#else
static inline uint32_t ncp_rdcycle(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

static inline uint32_t ncp_rdinstret(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}
#endif

#endif /* NCP_RT_H */
