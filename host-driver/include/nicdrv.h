/*
 * nicdrv.h - the host driver stub: error codes and the firmware loader.
 *
 * Status: the firmware loader (probe steps 1-3 of docs/host-interface.md) is here; the rest of
 * the driver (handshake, interrupts, miss thread, host tables, pinning) and the user library come
 * with the host-driver issue.
 */
#ifndef NICDRV_H
#define NICDRV_H

#include <stddef.h>
#include <stdint.h>

#include "nicdrv_bus.h"

enum nicdrv_err {
    NICDRV_OK = 0,
    NICDRV_EBUS = -1,      /* an MMIO access failed */
    NICDRV_ENODEV = -2,    /* a register block's ID or major version is not the expected one */
    NICDRV_EIMAGE = -3,    /* the firmware image is invalid (the message says why) */
    NICDRV_EVERIFY = -4,   /* instruction memory does not read back what was written */
    NICDRV_ETIMEDOUT = -5, /* the firmware did not reach the expected state in time */
};

struct nicdrv_fw_info {
    uint32_t fw_version, length, entry, payload_crc, flags;
};

/*
 * Loads a flash image into instruction memory through the BAR2 window and starts the core.
 * Steps: check the hostif block's ID and major version; validate the image (nic_fwimg_parse,
 * against the NIC's instruction memory; required_major 0 accepts any firmware); hold the core in
 * reset and point the window at IMEM; write the payload; read back one word in every 256 plus the
 * last one; point the window back at SRAM and release the core. On error the core stays in reset
 * and `err` holds a one-line message. `info` (may be NULL) receives the image's header fields.
 */
int nicdrv_fw_load(const struct nicdrv_bus *bus, const void *image, size_t len, uint32_t required_major,
                   struct nicdrv_fw_info *info, char *err, size_t errlen);

const char *nicdrv_strerror(int err);

#endif /* NICDRV_H */
