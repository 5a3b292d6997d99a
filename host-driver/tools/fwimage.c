/*
 * fwimage: make, check and convert NCP firmware flash images (format: hal/include/nic_fwimage.h).
 *
 *   fwimage pack --bin FW.bin --version V [--load ADDR] [--entry ADDR] [--flags F] -o FW.img
 *   fwimage verify FW.img [--imem BASE:SIZE] [--major N]   check as the driver's loader does
 *   fwimage hex FW.bin -o FW.hex                          32-bit little-endian words for $readmemh
 *
 * The build uses pack and hex after each firmware link; verify is what a board flasher runs
 * before writing. Exit status: 0 ok, 1 invalid image (message says why), 2 usage or I/O error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_fwimage.h"
#include "nic_memmap.h"

#define MAX_IMAGE (16u * 1024u * 1024u)

static const char *prog = "fwimage";

static void usage(FILE *f)
{
    fprintf(f,
            "usage:\n"
            "  %s pack --bin FW.bin --version V [--load ADDR] [--entry ADDR] [--flags F] -o FW.img\n"
            "  %s verify FW.img [--imem BASE:SIZE] [--major N]\n"
            "  %s hex FW.bin -o FW.hex\n"
            "--version is MAJOR.MINOR (e.g. 0.1) or the 32-bit value major << 16 | minor.\n"
            "--load and --entry default to the start of instruction memory (the core's reset vector).\n"
            "verify checks the image as the host driver does; --imem defaults to the NIC's instruction\n"
            "memory (0x%08x, %u bytes). Exit status: 0 ok, 1 invalid image, 2 usage or I/O error.\n",
            prog, prog, prog, (unsigned)NIC_IMEM_BASE, (unsigned)NIC_IMEM_SIZE);
}

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 0);
    if (errno || end == s || *end != '\0' || v > 0xFFFFFFFFul)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* A firmware version: MAJOR.MINOR (each 0..65535, e.g. 0.1 or 1.12) or the 32-bit value
 * major << 16 | minor as a number (0x00000001). */
static int parse_version(const char *s, uint32_t *out)
{
    char *end;
    unsigned long maj, min;

    if (!strchr(s, '.'))
        return parse_u32(s, out);
    errno = 0;
    maj = strtoul(s, &end, 10);
    if (errno || end == s || *end != '.' || maj > 0xFFFFul || s[0] == '-')
        return -1;
    s = end + 1;
    min = strtoul(s, &end, 10);
    if (errno || end == s || *end != '\0' || min > 0xFFFFul || s[0] == '-')
        return -1;
    *out = (uint32_t)(maj << 16 | min);
    return 0;
}

/* Reads a whole file; returns NULL (after printing why) on error. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb;
            cap = cap ? cap * 2 : 65536;
            if (cap > MAX_IMAGE + NIC_FWIMG_HEADER_SIZE) {
                fprintf(stderr, "%s: %s: larger than %u bytes\n", prog, path, MAX_IMAGE);
                goto fail;
            }
            nb = realloc(buf, cap);
            if (!nb) {
                fprintf(stderr, "%s: out of memory\n", prog);
                goto fail;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: %s: read error\n", prog, path);
        goto fail;
    }
    fclose(f);
    *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

static int write_file(const char *path, const void *a, size_t alen, const void *b, size_t blen)
{
    FILE *f = fopen(path, "wb");

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return 2;
    }
    if (fwrite(a, 1, alen, f) != alen || (blen && fwrite(b, 1, blen, f) != blen) || fclose(f) != 0) {
        fprintf(stderr, "%s: %s: write error\n", prog, path);
        return 2;
    }
    return 0;
}

static int cmd_pack(int argc, char **argv)
{
    const char *bin = NULL, *out = NULL;
    struct nic_fwimg_info info = {.load_addr = NIC_IMEM_BASE, .entry = NIC_IMEM_BASE};
    int have_version = 0;
    uint8_t hdr[NIC_FWIMG_HEADER_SIZE];
    uint8_t *payload;
    size_t len;
    int rc;

    for (int i = 0; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        int bad = 0;

        if (!strcmp(a, "--bin"))
            bin = v;
        else if (!strcmp(a, "-o"))
            out = v;
        else if (!strcmp(a, "--load"))
            bad = parse_u32(v, &info.load_addr);
        else if (!strcmp(a, "--entry"))
            bad = parse_u32(v, &info.entry);
        else if (!strcmp(a, "--flags"))
            bad = parse_u32(v, &info.flags);
        else if (!strcmp(a, "--version"))
            bad = parse_version(v, &info.fw_version), have_version = !bad;
        else {
            fprintf(stderr, "%s: pack: unknown option '%s'\n", prog, a);
            goto bad;
        }
        if (bad) {
            fprintf(stderr, "%s: pack: bad value '%s' for %s%s\n", prog, v, a,
                    !strcmp(a, "--version") ? " (MAJOR.MINOR, e.g. 0.1, each 0..65535, or a 32-bit number)"
                                            : " (a 32-bit number)");
            goto bad;
        }
    }
    if (argc % 2) {
        fprintf(stderr, "%s: pack: '%s' needs a value\n", prog, argv[argc - 1]);
        goto bad;
    }
    if (!bin || !out || !have_version) {
        fprintf(stderr, "%s: pack: %s missing\n", prog, !bin ? "--bin FW.bin" : !out ? "-o FW.img" : "--version V");
        goto bad;
    }
    payload = read_file(bin, &len);
    if (!payload)
        return 2;
    if (len == 0 || len % 4 != 0) {
        /* The linker script pads the image to a word; anything else is a broken build. */
        fprintf(stderr, "%s: %s: payload length %zu is zero or not a multiple of 4\n", prog, bin, len);
        free(payload);
        return 1;
    }
    info.length = (uint32_t)len;
    nic_fwimg_make_header(hdr, &info, payload);
    /* Self-check: what we write must be what the loader accepts. */
    {
        uint8_t *img = malloc(sizeof hdr + len);
        enum nic_fwimg_err err;
        if (!img) {
            free(payload);
            return 2;
        }
        memcpy(img, hdr, sizeof hdr);
        memcpy(img + sizeof hdr, payload, len);
        err = nic_fwimg_parse(img, sizeof hdr + len, NULL, NULL);
        free(img);
        if (err != NIC_FWIMG_OK) {
            fprintf(stderr, "%s: %s: %s\n", prog, bin, nic_fwimg_strerror(err));
            free(payload);
            return 1;
        }
    }
    rc = write_file(out, hdr, sizeof hdr, payload, len);
    free(payload);
    return rc;
bad:
    usage(stderr);
    return 2;
}

static int cmd_verify(int argc, char **argv)
{
    struct nic_fwimg_target target = {NIC_IMEM_BASE, NIC_IMEM_SIZE, 0};
    struct nic_fwimg_info info;
    const char *path = NULL;
    enum nic_fwimg_err err;
    uint8_t *img;
    size_t len;

    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--imem") && i + 1 < argc) {
            char *colon = strchr(argv[++i], ':');
            if (!colon)
                goto bad;
            *colon = '\0';
            if (parse_u32(argv[i], &target.imem_base) || parse_u32(colon + 1, &target.imem_size))
                goto bad;
        } else if (!strcmp(argv[i], "--major") && i + 1 < argc) {
            if (parse_u32(argv[++i], &target.required_major))
                goto bad;
        } else if (!path && argv[i][0] != '-') {
            path = argv[i];
        } else {
            goto bad;
        }
    }
    if (!path)
        goto bad;
    img = read_file(path, &len);
    if (!img)
        return 2;
    err = nic_fwimg_parse(img, len, &target, &info);
    if (err != NIC_FWIMG_OK) {
        fprintf(stderr, "%s: %s: rejected: %s\n", prog, path, nic_fwimg_strerror(err));
        free(img);
        return 1;
    }
    printf("%s: ok: firmware %u.%u, %u bytes at 0x%08x, entry 0x%08x, crc 0x%08x%s\n", path,
           (unsigned)(info.fw_version >> 16), (unsigned)(info.fw_version & 0xFFFF), (unsigned)info.length,
           (unsigned)info.load_addr, (unsigned)info.entry, (unsigned)info.payload_crc,
           info.flags & NIC_FWIMG_F_STATIC_LOOKUP ? ", static lookup" : "");
    free(img);
    return 0;
bad:
    usage(stderr);
    return 2;
}

static int cmd_hex(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    uint8_t *bin;
    size_t len;
    FILE *f;

    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!in && argv[i][0] != '-')
            in = argv[i];
        else
            goto bad;
    }
    if (!in || !out)
        goto bad;
    bin = read_file(in, &len);
    if (!bin)
        return 2;
    f = fopen(out, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
        free(bin);
        return 2;
    }
    for (size_t i = 0; i < len; i += 4) {
        uint32_t w = 0;
        for (size_t b = 0; b < 4 && i + b < len; b++)
            w |= (uint32_t)bin[i + b] << (8 * b);
        fprintf(f, "%08x\n", (unsigned)w);
    }
    free(bin);
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: %s: write error\n", prog, out);
        return 2;
    }
    return 0;
bad:
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "pack"))
        return cmd_pack(argc - 2, argv + 2);
    if (!strcmp(argv[1], "verify"))
        return cmd_verify(argc - 2, argv + 2);
    if (!strcmp(argv[1], "hex"))
        return cmd_hex(argc - 2, argv + 2);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
    usage(stderr);
    return 2;
}
