/*
 * report.h - what the JSON reports of nicsim and nicrun have in common (docs/nicsim.md, Reports).
 *
 *   report_open()      opens an output file before the run (a bad path fails at once, exit 3)
 *   report_image()     parses a flash image as the driver's loader will (nic_fwimg_parse against
 *                      the NIC's instruction memory), so a corrupt --fw is a set-up error before
 *                      any cluster is built
 *   report_new()       a report's root object: schema_version, tool, tool_version, git_describe,
 *                      firmware {image, version, payload_crc32, image_crc32, ...}
 *   report_write()     prints a report (cJSON: valid JSON for any string in it) and closes the file
 *   report_signals()   SIGINT/SIGTERM set report_signal (the run stops at the next check and
 *                      writes a report marked partial); a second signal kills as usual
 *
 * Contract: single-threaded; report_signal is the only state touched by the handler.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "nic_fwimage.h"

/* 2: written with cJSON; schema_version, tool_version, git_describe, firmware{}, partial, signal
 * (1 was nicsim's hand-written report) */
#define REPORT_SCHEMA_VERSION 2

extern volatile sig_atomic_t report_signal; /* the signal that asked the run to stop, or 0 */

FILE *report_open(const char *tool, const char *opt, const char *path);
/* 0 with *info filled, or -1 after printing "TOOL: IMAGE: not a valid firmware image: WHY". */
int report_image(const char *tool, const char *path, const uint8_t *img, size_t len, struct nic_fwimg_info *info);
cJSON *report_new(const char *tool, const char *img_path, const uint8_t *img, size_t img_len);
/* report_signal != 0: adds "partial": true and "signal": "SIGINT"/"SIGTERM" (or "SIGKILL": GDB's
 * kill, nodedbg.c) (else "partial": false). */
void report_mark(cJSON *root);
int report_write(FILE *f, cJSON *root, const char *tool, const char *path); /* frees root, closes f */
void report_signals(void);
const char *report_signame(int sig);

/* helpers: a number rounded to `dec` decimals (NaN/inf become null) */
cJSON *report_num(cJSON *obj, const char *key, double v, int dec);
cJSON *report_u64(cJSON *obj, const char *key, uint64_t v);

#endif /* SIM_REPORT_H */
