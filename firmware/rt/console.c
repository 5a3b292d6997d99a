/*
 * console.c: the debug console and the test-status mailbox, the firmware's two ways to talk to
 * whoever runs it (the cluster harness, coresim, or a board's debug UART bridge).
 */
#include <string.h>

#include "ncp_rt.h"
#include "nic_mmio.h"

void ncp_console_putc(char c)
{
    nic_wr(NIC_CONSOLE_BASE, NIC_CONSOLE_TXDATA, (uint8_t)c);
}

void ncp_console_write(const char *s, size_t len)
{
    while (len--)
        ncp_console_putc(*s++);
}

void ncp_console_puts(const char *s)
{
    ncp_console_write(s, strlen(s));
}

void ncp_test_pass(void)
{
    nic_wr(NIC_TESTMB_BASE, NIC_TESTMB_STATUS, 1);
}

void ncp_test_fail(uint32_t code)
{
    /* code 0 would read as "pass": failures always carry a nonzero code */
    nic_wr(NIC_TESTMB_BASE, NIC_TESTMB_STATUS, ((code ? code : 1u) << 1) | 1u);
}

void ncp_test_value(uint32_t value)
{
    nic_wr(NIC_TESTMB_BASE, NIC_TESTMB_VALUE, value);
}

void ncp_console_dec(uint32_t v)
{
    char b[10];
    unsigned n = 0;

    do {
        b[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        ncp_console_putc(b[--n]);
}
