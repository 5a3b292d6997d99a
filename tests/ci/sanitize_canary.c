/* sanitize_canary: bugs the sanitizer build must catch (tests/ci/sanitize_host.sh).
 *   sanitize_canary heap    writes one byte past a heap block (ASan: heap-buffer-overflow)
 *   sanitize_canary signed  overflows a signed int (UBSan: signed integer overflow)
 *   sanitize_canary         does nothing wrong (exit 0) */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "heap")) {
        char *p = malloc(8);
        volatile int i = 8;
        if (!p)
            return 2;
        p[i] = 1;
        printf("%d\n", p[i]);
        free(p);
    } else if (argc > 1 && !strcmp(argv[1], "signed")) {
        volatile int x = INT_MAX;
        x = x + argc;
        printf("%d\n", x);
    }
    return 0;
}
