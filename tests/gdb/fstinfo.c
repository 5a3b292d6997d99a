/* fstinfo.c - what an FST waveform holds, for the waveform tests (tests/gdb/check_fst.py):
 * its timescale, first and last time, variable count and scopes, through the FST reader that
 * ships with Verilator (gtkwave/fstapi.c). usage: fstinfo FILE */
#include <stdio.h>

#include "fstapi.h"

int main(int argc, char **argv)
{
    void *r;
    struct fstHier *h;
    char path[4096];
    size_t depth = 0, len[64];

    if (argc != 2) {
        fprintf(stderr, "usage: fstinfo FILE\n");
        return 2;
    }
    r = fstReaderOpen(argv[1]);
    if (!r) {
        fprintf(stderr, "fstinfo: %s: not an FST file\n", argv[1]);
        return 1;
    }
    printf("timescale %d\n", (int)fstReaderGetTimescale(r));
    printf("start %llu\n", (unsigned long long)fstReaderGetStartTime(r));
    printf("end %llu\n", (unsigned long long)fstReaderGetEndTime(r));
    printf("vars %llu\n", (unsigned long long)fstReaderGetVarCount(r));
    printf("changes %llu\n", (unsigned long long)fstReaderGetValueChangeSectionCount(r));
    path[0] = 0;
    len[0] = 0;
    while ((h = fstReaderIterateHier(r))) {
        if (h->htyp == FST_HT_SCOPE && depth + 1 < 64) {
            size_t l = len[depth];
            int k = snprintf(path + l, sizeof path - l, "%s%s", l ? "." : "", h->u.scope.name);
            len[++depth] = l + (k > 0 ? (size_t)k : 0);
            if (len[depth] >= sizeof path)
                len[depth] = sizeof path - 1;
            printf("scope %s\n", path);
        } else if (h->htyp == FST_HT_UPSCOPE && depth) {
            path[len[--depth]] = 0;
        } else if (h->htyp == FST_HT_VAR && !h->u.var.is_alias) {
            printf("var %s.%s\n", path, h->u.var.name);
        }
    }
    fstReaderClose(r);
    return 0;
}
