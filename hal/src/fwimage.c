/*
 * nic_fwimage: build and validate firmware flash images (layout in nic_fwimage.h).
 *
 * Every field is read byte by byte as little-endian, so the code does not depend on the host's
 * endianness or on struct packing. Validation order: size, magic, format, header CRC (so a
 * corrupted header is named as such before its fields are trusted), then length, payload CRC,
 * placement and version.
 */
#include "nic_fwimage.h"

#include <string.h>

#include "nic_crc32.h"

#define HDR_CRC_OFFSET 44u

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

enum nic_fwimg_err nic_fwimg_parse(const void *buf, size_t len, const struct nic_fwimg_target *target,
                                   struct nic_fwimg_info *out)
{
    const uint8_t *p = buf;
    struct nic_fwimg_info info;

    if (len < NIC_FWIMG_HEADER_SIZE)
        return NIC_FWIMG_ERR_TRUNCATED;
    if (get_le32(p) != NIC_FWIMG_MAGIC)
        return NIC_FWIMG_ERR_MAGIC;
    if (get_le16(p + 4) != NIC_FWIMG_FORMAT || get_le16(p + 6) != NIC_FWIMG_HEADER_SIZE)
        return NIC_FWIMG_ERR_FORMAT;
    if (nic_crc32(p, HDR_CRC_OFFSET) != get_le32(p + HDR_CRC_OFFSET))
        return NIC_FWIMG_ERR_HEADER_CRC;

    info.fw_version = get_le32(p + 8);
    info.load_addr = get_le32(p + 12);
    info.entry = get_le32(p + 16);
    info.length = get_le32(p + 20);
    info.payload_crc = get_le32(p + 24);
    info.flags = get_le32(p + 28);
    info.payload = p + NIC_FWIMG_HEADER_SIZE;

    if (len - NIC_FWIMG_HEADER_SIZE < info.length)
        return NIC_FWIMG_ERR_TRUNCATED;
    if (info.length == 0 || info.length % 4 != 0 || len - NIC_FWIMG_HEADER_SIZE != info.length)
        return NIC_FWIMG_ERR_LENGTH;
    if (nic_crc32(info.payload, info.length) != info.payload_crc)
        return NIC_FWIMG_ERR_PAYLOAD_CRC;
    if (target) {
        /* Written as differences so that no sum can wrap around 2^32. */
        if (info.load_addr < target->imem_base || info.load_addr - target->imem_base > target->imem_size ||
            info.length > target->imem_size - (info.load_addr - target->imem_base))
            return NIC_FWIMG_ERR_RANGE;
        if (target->required_major != 0 && info.fw_version >> 16 != target->required_major)
            return NIC_FWIMG_ERR_VERSION;
    }
    if (info.entry % 4 != 0 || info.entry < info.load_addr || info.entry - info.load_addr >= info.length)
        return NIC_FWIMG_ERR_ENTRY;
    if (out)
        *out = info;
    return NIC_FWIMG_OK;
}

void nic_fwimg_make_header(uint8_t hdr[NIC_FWIMG_HEADER_SIZE], const struct nic_fwimg_info *info,
                           const uint8_t *payload)
{
    memset(hdr, 0, NIC_FWIMG_HEADER_SIZE);
    put_le32(hdr, NIC_FWIMG_MAGIC);
    put_le16(hdr + 4, NIC_FWIMG_FORMAT);
    put_le16(hdr + 6, NIC_FWIMG_HEADER_SIZE);
    put_le32(hdr + 8, info->fw_version);
    put_le32(hdr + 12, info->load_addr);
    put_le32(hdr + 16, info->entry);
    put_le32(hdr + 20, info->length);
    put_le32(hdr + 24, nic_crc32(payload, info->length));
    put_le32(hdr + 28, info->flags);
    put_le32(hdr + HDR_CRC_OFFSET, nic_crc32(hdr, HDR_CRC_OFFSET));
}

const char *nic_fwimg_strerror(enum nic_fwimg_err err)
{
    static const char *const text[NIC_FWIMG_ERR__COUNT] = {
        [NIC_FWIMG_OK] = "ok",
        [NIC_FWIMG_ERR_TRUNCATED] = "image truncated (shorter than its header says)",
        [NIC_FWIMG_ERR_MAGIC] = "bad magic: not an NCP firmware image",
        [NIC_FWIMG_ERR_FORMAT] = "unknown image header format",
        [NIC_FWIMG_ERR_HEADER_CRC] = "header CRC mismatch: image header corrupted",
        [NIC_FWIMG_ERR_LENGTH] = "bad payload length (zero, not a multiple of 4, or trailing bytes)",
        [NIC_FWIMG_ERR_PAYLOAD_CRC] = "payload CRC mismatch: image corrupted",
        [NIC_FWIMG_ERR_RANGE] = "payload does not fit in instruction memory",
        [NIC_FWIMG_ERR_ENTRY] = "entry point outside the payload or misaligned",
        [NIC_FWIMG_ERR_VERSION] = "firmware major version does not match the driver",
    };

    if ((unsigned)err >= NIC_FWIMG_ERR__COUNT)
        return "unknown error";
    return text[err];
}
