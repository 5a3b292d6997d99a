/* divref.c - div, divu, rem, remu on the core against a software reference
 * (shift-subtract long division on magnitudes, the spec's rules for divide
 * by zero and signed overflow), for corner operands crossed with each other
 * and for pseudo-random operands of every magnitude (the divider's early out
 * depends on the dividend's size). bench_main returns 0 if all match, else
 * the index of the first mismatch + 1. */
#include <stdint.h>

static uint32_t udiv_ref(uint32_t a, uint32_t b, uint32_t *r)
{
    uint32_t q = 0, rem = 0;
    if (b == 0) {
        *r = a;
        return 0xFFFFFFFFu;
    }
    for (int i = 31; i >= 0; i--) {
        uint64_t t = ((uint64_t)rem << 1) | ((a >> i) & 1u);
        if (t >= b) {
            rem = (uint32_t)(t - b);
            q |= 1u << i;
        } else {
            rem = (uint32_t)t;
        }
    }
    *r = rem;
    return q;
}

static void sdiv_ref(uint32_t a, uint32_t b, uint32_t *q, uint32_t *r)
{
    if (b == 0) {
        *q = 0xFFFFFFFFu;
        *r = a;
        return;
    }
    if (a == 0x80000000u && b == 0xFFFFFFFFu) {
        *q = 0x80000000u;
        *r = 0;
        return;
    }
    int an = (a >> 31) != 0, bn = (b >> 31) != 0;
    uint32_t am = an ? 0u - a : a, bm = bn ? 0u - b : b, rm;
    uint32_t qm = udiv_ref(am, bm, &rm);
    *q = (an != bn) ? 0u - qm : qm;
    *r = an ? 0u - rm : rm;
}

static uint32_t hw(uint32_t op, uint32_t a, uint32_t b)
{
    uint32_t y;
    switch (op) {
    case 0: __asm__ volatile("div %0, %1, %2" : "=r"(y) : "r"(a), "r"(b)); break;
    case 1: __asm__ volatile("divu %0, %1, %2" : "=r"(y) : "r"(a), "r"(b)); break;
    case 2: __asm__ volatile("rem %0, %1, %2" : "=r"(y) : "r"(a), "r"(b)); break;
    default: __asm__ volatile("remu %0, %1, %2" : "=r"(y) : "r"(a), "r"(b)); break;
    }
    return y;
}

static uint32_t check(uint32_t a, uint32_t b)
{
    uint32_t q, r, uq, ur;
    sdiv_ref(a, b, &q, &r);
    uq = udiv_ref(a, b, &ur);
    if (hw(0, a, b) != q) return 1;
    if (hw(1, a, b) != uq) return 2;
    if (hw(2, a, b) != r) return 3;
    if (hw(3, a, b) != ur) return 4;
    return 0;
}

static const uint32_t corners[] = {
    0, 1, 2, 3, 5, 7, 0x3F, 0x40, 0x41, 0xFFF, 0x1000, 0x3FFFF, 0x40000, 0xFFFFFF, 0x1000000,
    0x3FFFFFFF, 0x40000000, 0x7FFFFFFF, 0x80000000u, 0x80000001u, 0xAAAAAAAAu, 0xFFFFFFFEu,
    0xFFFFFFFFu, 0xFFFFFFF9u, 0xC0000000u, 0x12345678u, 0xFFFF0000u, 0x0000FFFFu,
};

int bench_main(void)
{
    const unsigned n = sizeof(corners) / sizeof(corners[0]);
    unsigned idx = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++, idx++)
            if (check(corners[i], corners[j]))
                return (int)idx + 1;
    /* random operands: the dividend shifted right 0..31 bits, the divisor too */
    uint32_t x = 0x2545F491u;
    for (unsigned k = 0; k < 3000; k++, idx++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        uint32_t a = x >> (k % 32);
        uint32_t y = x * 0x9E3779B9u + k;
        uint32_t b = y >> ((k / 32) % 32);
        if (check(a, b))
            return (int)idx + 1;
    }
    return 0;
}
