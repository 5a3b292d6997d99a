/*
 * report.c - the JSON reports' common part (report.h).
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nic_crc32.h"
#include "nic_memmap.h"
#include "nic_version.h"

volatile sig_atomic_t report_signal;

FILE *report_open(const char *tool, const char *opt, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "%s: %s %s: %s\n", tool, opt, path, strerror(errno));
    return f;
}

int report_image(const char *tool, const char *path, const uint8_t *img, size_t len, struct nic_fwimg_info *info)
{
    const struct nic_fwimg_target t = { NIC_IMEM_BASE, NIC_IMEM_SIZE, 0 };
    enum nic_fwimg_err e = nic_fwimg_parse(img, len, &t, info);
    if (e == NIC_FWIMG_OK)
        return 0;
    fprintf(stderr, "%s: %s: not a valid firmware image: %s\n", tool, path, nic_fwimg_strerror(e));
    return -1;
}

static void hex32(cJSON *o, const char *key, uint32_t v)
{
    char b[16];
    snprintf(b, sizeof b, "0x%08" PRIx32, v);
    cJSON_AddStringToObject(o, key, b);
}

cJSON *report_new(const char *tool, const char *img_path, const uint8_t *img, size_t img_len)
{
    cJSON *r = cJSON_CreateObject(), *fw;
    struct nic_fwimg_info fi;
    const struct nic_fwimg_target t = { NIC_IMEM_BASE, NIC_IMEM_SIZE, 0 };
    if (!r)
        return NULL;
    cJSON_AddNumberToObject(r, "schema_version", REPORT_SCHEMA_VERSION);
    cJSON_AddStringToObject(r, "tool", tool);
    cJSON_AddStringToObject(r, "tool_version", NIC_TOOL_VERSION);
    cJSON_AddStringToObject(r, "git_describe", NIC_GIT_DESCRIBE);
    fw = cJSON_AddObjectToObject(r, "firmware");
    if (fw) {
        cJSON_AddStringToObject(fw, "image", img_path ? img_path : "");
        if (img && nic_fwimg_parse(img, img_len, &t, &fi) == NIC_FWIMG_OK) {
            char v[24];
            snprintf(v, sizeof v, "%u.%u", (unsigned)(fi.fw_version >> 16), (unsigned)(fi.fw_version & 0xFFFFu));
            cJSON_AddStringToObject(fw, "version", v);
            cJSON_AddNumberToObject(fw, "version_raw", fi.fw_version);
            hex32(fw, "payload_crc32", fi.payload_crc);
            hex32(fw, "image_crc32", nic_crc32(img, img_len));
            cJSON_AddNumberToObject(fw, "image_bytes", (double)img_len);
            cJSON_AddBoolToObject(fw, "static_lookup_flag", (fi.flags & NIC_FWIMG_F_STATIC_LOOKUP) != 0);
        } else {
            cJSON_AddNullToObject(fw, "version");
        }
    }
    return r;
}

const char *report_signame(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGKILL ? "SIGKILL" : "signal";
}

void report_mark(cJSON *root)
{
    cJSON_AddBoolToObject(root, "partial", report_signal != 0);
    if (report_signal)
        cJSON_AddStringToObject(root, "signal", report_signame(report_signal));
}

int report_write(FILE *f, cJSON *root, const char *tool, const char *path)
{
    char *s = root ? cJSON_Print(root) : NULL;
    int bad = !s;
    if (s) {
        size_t n = strlen(s);
        bad = fwrite(s, 1, n, f) != n || fputc('\n', f) == EOF;
    }
    if (fclose(f))
        bad = 1;
    if (bad)
        fprintf(stderr, "%s: %s: the report could not be written%s\n", tool, path, s ? "" : " (out of memory)");
    free(s);
    cJSON_Delete(root);
    return bad ? -1 : 0;
}

static void on_signal(int sig)
{
    report_signal = sig;
}

void report_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND; /* a second signal terminates as usual */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

cJSON *report_num(cJSON *obj, const char *key, double v, int dec)
{
    if (!isfinite(v))
        return cJSON_AddNullToObject(obj, key);
    if (dec >= 0) {
        double m = pow(10.0, dec);
        v = round(v * m) / m;
    }
    return cJSON_AddNumberToObject(obj, key, v);
}

cJSON *report_u64(cJSON *obj, const char *key, uint64_t v)
{
    return cJSON_AddNumberToObject(obj, key, (double)v);
}
