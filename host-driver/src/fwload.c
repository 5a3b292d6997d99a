/*
 * fwload.c - the driver's firmware loader (contract in nicdrv.h).
 *
 * Why read back only a sample: a host MMIO read is a PCIe round trip (~1 us); reading back a
 * 64 KiB image word by word would cost ~16 ms of simulated time per node. The image's own CRC
 * was checked before writing, posted writes are not lost on the link model, and the sample
 * catches a misdirected window (wrong win_base or win_imem), which is the failure that happens.
 */
#include <stdio.h>

#include "nic_fwimage.h"
#include "nic_memmap.h"
#include "nic_regs.h"
#include "nicdrv.h"

#define REG(block, reg) (NIC_##block##_OFFSET + NIC_##block##_##reg)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int fail(char *err, size_t errlen, int code, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return code;
}

int nicdrv_fw_load(const struct nicdrv_bus *bus, const void *image, size_t len, uint32_t required_major,
                   struct nicdrv_fw_info *info, char *err, size_t errlen)
{
    const struct nic_fwimg_target target = { NIC_IMEM_BASE, NIC_IMEM_SIZE, required_major };
    struct nic_fwimg_info img;
    enum nic_fwimg_err ierr;
    uint32_t id = 0, ver = 0, off;
    char msg[160];

    if (bus->rd32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, ID), &id) ||
        bus->rd32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, VERSION), &ver))
        return fail(err, errlen, NICDRV_EBUS, "hostif: MMIO read failed");
    if (id != NIC_HOSTIF_ID_VALUE || ver >> 16 != NIC_HOSTIF_VERSION_MAJOR) {
        snprintf(msg, sizeof msg, "hostif: id 0x%08x version 0x%08x, expected id 0x%08x major %u", (unsigned)id,
                 (unsigned)ver, (unsigned)NIC_HOSTIF_ID_VALUE, (unsigned)NIC_HOSTIF_VERSION_MAJOR);
        return fail(err, errlen, NICDRV_ENODEV, msg);
    }
    ierr = nic_fwimg_parse(image, len, &target, &img);
    if (ierr != NIC_FWIMG_OK) {
        snprintf(msg, sizeof msg, "firmware image rejected: %s", nic_fwimg_strerror(ierr));
        return fail(err, errlen, NICDRV_EIMAGE, msg);
    }
    if (info) {
        info->fw_version = img.fw_version;
        info->length = img.length;
        info->entry = img.entry;
        info->payload_crc = img.payload_crc;
        info->flags = img.flags;
    }

    /* Hold the core, window onto IMEM. The window is smaller than IMEM may be: slide it. */
    if (bus->wr32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, CTRL),
                  NIC_HOSTIF_CTRL_CORE_RESET_MASK | NIC_HOSTIF_CTRL_WIN_IMEM_MASK))
        return fail(err, errlen, NICDRV_EBUS, "hostif.ctrl: MMIO write failed");
    for (off = 0; off < img.length; off += 4) {
        uint32_t at = img.load_addr - NIC_IMEM_BASE + off;
        if (off == 0 || at % NICDRV_WINDOW_SIZE == 0) {
            if (bus->wr32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, WIN_BASE), at - at % NICDRV_WINDOW_SIZE))
                return fail(err, errlen, NICDRV_EBUS, "hostif.win_base: MMIO write failed");
        }
        if (bus->wr32(bus->ctx, NICDRV_BAR_WINDOW, at % NICDRV_WINDOW_SIZE, le32(img.payload + off)))
            return fail(err, errlen, NICDRV_EBUS, "IMEM window: MMIO write failed");
    }
    for (off = 0;; off += 1024) { /* one word in every 256, and the last one */
        if (off >= img.length)
            off = img.length - 4;
        uint32_t at = img.load_addr - NIC_IMEM_BASE + off, got = 0, want = le32(img.payload + off);
        if (bus->wr32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, WIN_BASE), at - at % NICDRV_WINDOW_SIZE) ||
            bus->rd32(bus->ctx, NICDRV_BAR_WINDOW, at % NICDRV_WINDOW_SIZE, &got))
            return fail(err, errlen, NICDRV_EBUS, "IMEM window: MMIO read failed");
        if (got != want) {
            snprintf(msg, sizeof msg, "IMEM readback at 0x%08x: 0x%08x, wrote 0x%08x", (unsigned)(NIC_IMEM_BASE + at),
                     (unsigned)got, (unsigned)want);
            return fail(err, errlen, NICDRV_EVERIFY, msg);
        }
        if (off == img.length - 4)
            break;
    }
    if (bus->wr32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, WIN_BASE), 0) ||
        bus->wr32(bus->ctx, NICDRV_BAR_REGS, REG(HOSTIF, CTRL), 0))
        return fail(err, errlen, NICDRV_EBUS, "hostif.ctrl: MMIO write failed");
    return NICDRV_OK;
}

const char *nicdrv_strerror(int err)
{
    switch (err) {
    case NICDRV_OK:
        return "ok";
    case NICDRV_EBUS:
        return "MMIO access failed";
    case NICDRV_ENODEV:
        return "unexpected NIC (block ID or version)";
    case NICDRV_EIMAGE:
        return "invalid firmware image";
    case NICDRV_EVERIFY:
        return "instruction memory readback mismatch";
    case NICDRV_ETIMEDOUT:
        return "firmware did not respond in time";
    case NICDRV_EPROTO:
        return "firmware broke the host interface protocol";
    case NICDRV_ENOMEM:
        return "out of host memory or host table space";
    case NICDRV_EINVAL:
        return "invalid argument";
    case NICDRV_ENORES:
        return "no room on the NIC";
    case NICDRV_ESTATE:
        return "driver not probed or firmware stopped";
    case NICDRV_ENOENT:
        return "no such object";
    case NICDRV_EFAULT:
        return "memory could not be pinned or translated";
    case NICDRV_ECANCELED:
        return "host shutting down";
    case NICDRV_EBUSY:
        return "busy or already open";
    case NICDRV_EFW:
        return "firmware answered with an error";
    default:
        return "unknown error";
    }
}
