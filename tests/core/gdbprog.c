/* gdbprog.c - the program GDB drives in core.gdb (tests/gdb/gdb_test.py): it passes only if the
 * debugger wrote memory (gdb_poke) and a register (a0 at gdb_check's entry) while it was halted,
 * and every call of gdb_mark ran once (breakpoints stepped over, not re-executed or skipped).
 * Without GDB it fails with code 2. */
#include <stdint.h>

volatile uint32_t gdb_counter;
volatile uint32_t gdb_poke;
volatile uint32_t gdb_calls;

__attribute__((noinline)) void gdb_mark(uint32_t i)
{
    gdb_counter += i;
}

__attribute__((noinline)) uint32_t gdb_check(uint32_t x)
{
    gdb_calls++; /* a side effect: the checks below stay after the call */
    return x * 3u;
}

int bench_main(void);
int bench_main(void)
{
    uint32_t r;
    for (uint32_t i = 1; i <= 5; i++)
        gdb_mark(i);
    r = gdb_check(1);
    if (gdb_counter != 15)
        return 1;
    if (gdb_poke != 0x1234abcdu)
        return 2;
    if (r != 21)
        return 3;
    return 0;
}
