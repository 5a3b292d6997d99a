/*
 * tinyprintf.c - printf for the NCP test images that play a host (linked with imghost.c): the
 * conversions the tests use (%d %i %u %x %X %c %s %p %%, flags '-' and '0', a width, the length
 * modifiers l, ll, z) written straight to the debug console, instead of newlib's formatted I/O
 * (about 8 KiB of stdio with its buffers): with the NCP those images must fit the 64 KiB
 * instruction memory. The output is the same as newlib's for these conversions. fw_selftest
 * still checks newlib's own printf and snprintf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ncp_rt.h"

/* v / 10, returning v % 10: long division in 16-bit digits with 32-bit operations, so that the
 * images do not link libgcc's 64-bit division (__udivdi3, __umoddi3: about 2 KiB of instruction
 * memory) for printing a long long */
static unsigned div10(unsigned long long *v)
{
    unsigned long long q = 0;
    uint32_t r = 0;
    for (int sh = 48; sh >= 0; sh -= 16) {
        uint32_t cur = r << 16 | (uint32_t)(*v >> sh & 0xFFFFu);
        q |= (unsigned long long)(cur / 10u) << sh;
        r = cur % 10u;
    }
    *v = q;
    return r;
}

static int emit_pad(char c, int n)
{
    for (int i = 0; i < n; i++)
        ncp_console_putc(c);
    return n > 0 ? n : 0;
}

int vprintf(const char *f, va_list ap)
{
    int out = 0;

    for (; *f; f++) {
        if (*f != '%') {
            ncp_console_putc(*f);
            out++;
            continue;
        }
        int left = 0, zero = 0, width = 0, lng = 0;
        for (f++;; f++) {
            if (*f == '-')
                left = 1;
            else if (*f == '0')
                zero = 1;
            else
                break;
        }
        for (; *f >= '0' && *f <= '9'; f++)
            width = width * 10 + (*f - '0');
        for (; *f == 'l' || *f == 'z'; f++) /* z: size_t, a long on this core */
            lng++;
        char buf[24], *s = buf + sizeof buf;
        const char *str = NULL;
        int neg = 0, len;
        unsigned long long v = 0;
        switch (*f) {
        case 'd':
        case 'i': {
            long long x = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
            neg = x < 0;
            v = neg ? 0ull - (unsigned long long)x : (unsigned long long)x;
            goto dec;
        }
        case 'u':
            v = lng >= 2 ? va_arg(ap, unsigned long long) : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
        dec:
            do
                *--s = (char)('0' + div10(&v));
            while (v);
            break;
        case 'p':
            v = (uintptr_t)va_arg(ap, void *);
            goto hex;
        case 'x':
        case 'X':
            v = lng >= 2 ? va_arg(ap, unsigned long long) : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
        hex:
            do
                *--s = (*f == 'X' ? "0123456789ABCDEF" : "0123456789abcdef")[v & 15u];
            while (v >>= 4);
            if (*f == 'p') {
                *--s = 'x';
                *--s = '0';
            }
            break;
        case 'c':
            *--s = (char)va_arg(ap, int);
            break;
        case 's':
            str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            break;
        case '%':
            *--s = '%';
            break;
        default: /* not one of ours: shown as written */
            *--s = *f;
            *--s = '%';
            break;
        }
        if (!str)
            str = s;
        for (len = 0; (str != s || str + len < buf + sizeof buf) && str[len]; len++)
            ;
        len += neg;
        if (!left && !(zero && str == s))
            out += emit_pad(' ', width - len);
        if (neg) {
            ncp_console_putc('-');
            out++;
        }
        if (!left && zero && str == s)
            out += emit_pad('0', width - len);
        for (int i = 0; i < len - neg; i++)
            ncp_console_putc(str[i]);
        out += len - neg;
        if (left)
            out += emit_pad(' ', width - len);
    }
    return out;
}

int printf(const char *f, ...)
{
    va_list ap;
    int n;

    va_start(ap, f);
    n = vprintf(f, ap);
    va_end(ap);
    return n;
}
