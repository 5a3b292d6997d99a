/*
 * fw_selftest: the firmware runtime on the core, end to end.
 *
 * Checks, each with its own failure code (reported through the test mailbox):
 *   1-3  startup: .data initialised from the load image, .bss zeroed, stack in SRAM_STACK
 *   4-5  newlib: snprintf (nano formatted I/O) and printf to the debug console
 *   6-7  bounded heap: malloc/free work, an impossible malloc fails cleanly
 *   8    the shared HAL CRC-32 compiled for the core
 *   9    register blocks present with the IDs and major versions of the generated map
 *   10-11 traps: ecall reaches the hook with mcause 11 and the right mepc, execution resumes
 *   12-13 timer interrupt: wfi with mstatus.MIE = 0 wakes on MTIP, then the interrupt is taken
 *         once MIE is set, and the hook sees mcause = 0x80000007
 * It also prints the cycles and instructions the checks took (a coarse figure, not a benchmark).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncp_rt.h"
#include "nic_crc32.h"
#include "nic_mmio.h"

static volatile uint32_t data_word = 0x5EEDF00Du;
static volatile uint32_t bss_words[16];
static volatile uint32_t last_cause, last_epc, timer_irqs;

static void check(int ok, uint32_t code)
{
    if (!ok) {
        printf("fw_selftest: check %lu failed\n", (unsigned long)code);
        exit((int)code);
    }
}

static int selftest_hook(struct ncp_trap_frame *f)
{
    last_cause = f->mcause;
    if (f->mcause == 11) { /* ecall: skip it */
        last_epc = f->mepc;
        f->mepc += 4;
        return 1;
    }
    if (f->mcause == 0x80000007u) { /* timer: push mtimecmp out of reach */
        timer_irqs++;
        nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, 0xFFFFFFFFu);
        nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, 0xFFFFFFFFu);
        return 1;
    }
    return 0;
}

static uint32_t mip(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mip" : "=r"(v));
    return v;
}

int main(void)
{
    extern char __stack_bottom[], __stack_top[];
    uint32_t c0 = ncp_rdcycle(), i0 = ncp_rdinstret();
    char buf[64];
    uint32_t ecall_pc;
    int local;

    check(data_word == 0x5EEDF00Du, 1);
    for (size_t i = 0; i < 16; i++)
        check(bss_words[i] == 0, 2);
    check((char *)&local >= __stack_bottom && (char *)&local < __stack_top, 3);

    snprintf(buf, sizeof buf, "%d %x %s %c%%", -42, 0xBEEFu, "ok", 'z');
    check(strcmp(buf, "-42 beef ok z%") == 0, 4);
    check(printf("fw_selftest: newlib printf works (%s)\n", buf) > 0, 5);

    void *p = malloc(1000);
    check(p != NULL, 6);
    memset(p, 0xA5, 1000);
    free(p);
    check(malloc(1u << 30) == NULL, 7);

    check(nic_crc32("123456789", 9) == 0xCBF43926u, 8);

    check(nic_block_ok(TIMER) && nic_block_ok(INTC) && nic_block_ok(CONSOLE) && nic_block_ok(TESTMB), 9);

    ncp_set_trap_hook(selftest_hook);
    __asm__ volatile("auipc %0, 0\n\tecall" : "=r"(ecall_pc)::"memory");
    check(last_cause == 11, 10);
    check(last_epc == ecall_pc + 4, 11);

    /* Sleep with interrupts globally masked: wfi must still wake on a pending enabled MTIP. */
    uint32_t now = nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_LO);
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_HI, nic_rd(NIC_TIMER_BASE, NIC_TIMER_MTIME_HI) + (now > 0xFFFF0000u));
    nic_wr(NIC_TIMER_BASE, NIC_TIMER_MTIMECMP_LO, now + 2000);
    __asm__ volatile("csrci mstatus, 8\n\tcsrs mie, %0" ::"r"(1u << 7));
    for (int tries = 0; tries < 100 && !(mip() & (1u << 7)); tries++)
        __asm__ volatile("wfi");
    check(mip() & (1u << 7), 12);
    check(timer_irqs == 0, 12);
    __asm__ volatile("csrsi mstatus, 8" ::: "memory"); /* now the pending interrupt is taken */
    __asm__ volatile("csrci mstatus, 8\n\tcsrw mie, zero" ::: "memory");
    check(timer_irqs == 1 && last_cause == 0x80000007u, 13);

    printf("fw_selftest: all checks passed in %lu cycles, %lu instructions\n", (unsigned long)(ncp_rdcycle() - c0),
           (unsigned long)(ncp_rdinstret() - i0));
    return 0;
}
