/*
 * trap.c: trap dispatch and the fatal-error path.
 *
 * Role: the only C code that runs in trap context by default. The installed hook (the NCP's
 * interrupt top halves, or a test's expectations) gets first claim; anything unclaimed is fatal,
 * because an unexpected exception in the NCP means its state can no longer be trusted.
 */
#include <stdint.h>

#include "ncp_rt.h"
#include "nic_mmio.h"

struct ncp_trap_counters ncp_trap_count;

static ncp_trap_hook_t trap_hook;
static volatile int in_fatal;

void ncp_trap_dispatch(struct ncp_trap_frame *frame);

void ncp_set_trap_hook(ncp_trap_hook_t hook)
{
    trap_hook = hook;
}

static void sat_inc(uint32_t *c)
{
    if (*c != UINT32_MAX)
        (*c)++;
}

static void put_hex(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    char buf[10] = {'0', 'x'};

    for (int i = 0; i < 8; i++)
        buf[2 + i] = digits[(v >> (28 - 4 * i)) & 0xF];
    ncp_console_write(buf, sizeof buf);
}

void ncp_trap_dispatch(struct ncp_trap_frame *frame)
{
    if (frame->mcause & 0x80000000u)
        sat_inc(&ncp_trap_count.interrupts);
    else
        sat_inc(&ncp_trap_count.exceptions);
    if (trap_hook && trap_hook(frame))
        return;
    sat_inc(&ncp_trap_count.unhandled);
    if (in_fatal)
        return; /* a trap inside the fatal path: ncp_fatal's halt loop takes over on return */
    ncp_console_puts("ncp: unhandled trap mcause=");
    put_hex(frame->mcause);
    ncp_console_puts(" mepc=");
    put_hex(frame->mepc);
    ncp_console_puts(" mtval=");
    put_hex(frame->mtval);
    ncp_console_puts("\n");
    ncp_fatal("unhandled trap", frame->mcause & 0xFFFFFFu);
}

void ncp_fatal(const char *why, uint32_t code)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrw mie, zero" ::: "memory");
    if (!in_fatal) {
        in_fatal = 1;
        ncp_console_puts("ncp: fatal: ");
        ncp_console_puts(why);
        ncp_console_puts("\n");
        /* 0x7F0000 marks a fatal stop in the mailbox's failure code, the low bits carry `code`. */
        ncp_test_fail(0x7F0000u | (code & 0xFFFFu));
        nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_IRQ_RAISE, NIC_HOSTIF_IRQ_RAISE_ERROR_MASK);
    }
    ncp_halt(NIC_HOSTIF_FW_STATE_STATE_HALTED, code);
}

void ncp_halt(uint32_t state, uint32_t code)
{
    __asm__ volatile("csrci mstatus, 8\n\tcsrw mie, zero" ::: "memory");
    nic_wr(NIC_HOSTIF_BASE, NIC_HOSTIF_FW_STATE,
           nic_bits(NIC_HOSTIF_FW_STATE_STATE, state) | nic_bits(NIC_HOSTIF_FW_STATE_CODE, code));
    for (;;)
        __asm__ volatile("wfi"); /* mie == 0: sleeps for good; the harness sees a halted core */
}
