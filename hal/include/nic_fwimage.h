/*
 * nic_fwimage: the firmware flash image, the one artefact the host driver and a board flasher load.
 *
 * Layout (all fields little-endian, header NIC_FWIMG_HEADER_SIZE bytes, then the payload):
 *
 *   off size field
 *     0    4 magic        NIC_FWIMG_MAGIC ("NCPF" as bytes)
 *     4    2 format       NIC_FWIMG_FORMAT, the header layout version
 *     6    2 header_size  NIC_FWIMG_HEADER_SIZE
 *     8    4 fw_version   firmware version: major [31:16], minor [15:0]
 *    12    4 load_addr    core address of payload byte 0 (inside instruction memory)
 *    16    4 entry        core address execution starts at (inside the payload)
 *    20    4 length       payload bytes (a multiple of 4)
 *    24    4 payload_crc  CRC-32 (nic_crc32) of the payload
 *    28    4 flags        NIC_FWIMG_F_* below
 *    32   12 reserved     zero
 *    44    4 header_crc   CRC-32 of bytes 0..43
 *
 * Contract: nic_fwimg_parse() never reads outside [buf, buf + len) and accepts an image only when
 * every field is consistent; on error it fills nothing but returns a code whose text
 * nic_fwimg_strerror() gives. Pure functions, no allocation: usable by firmware, driver and tools.
 */
#ifndef NIC_FWIMAGE_H
#define NIC_FWIMAGE_H

#include <stddef.h>
#include <stdint.h>

#define NIC_FWIMG_MAGIC 0x4650434Eu /* bytes 'N' 'C' 'P' 'F' */
#define NIC_FWIMG_FORMAT 1u
#define NIC_FWIMG_HEADER_SIZE 48u

#define NIC_FWIMG_F_STATIC_LOOKUP 0x1u /* built with static (full-table) lookup */

enum nic_fwimg_err {
    NIC_FWIMG_OK = 0,
    NIC_FWIMG_ERR_TRUNCATED,   /* shorter than the header, or than header + length */
    NIC_FWIMG_ERR_MAGIC,       /* not a firmware image */
    NIC_FWIMG_ERR_FORMAT,      /* header format or header_size this loader does not know */
    NIC_FWIMG_ERR_HEADER_CRC,  /* header corrupted */
    NIC_FWIMG_ERR_LENGTH,      /* length zero, not a multiple of 4, or bytes after the payload */
    NIC_FWIMG_ERR_PAYLOAD_CRC, /* payload corrupted */
    NIC_FWIMG_ERR_RANGE,       /* payload does not fit the instruction memory given */
    NIC_FWIMG_ERR_ENTRY,       /* entry point outside the payload or misaligned */
    NIC_FWIMG_ERR_VERSION,     /* firmware major version differs from the one required */
    NIC_FWIMG_ERR__COUNT
};

struct nic_fwimg_info {
    uint32_t fw_version;
    uint32_t load_addr;
    uint32_t entry;
    uint32_t length;
    uint32_t payload_crc;
    uint32_t flags;
    const uint8_t *payload; /* points into the caller's buffer */
};

/* Where the image may go: payload must lie in [imem_base, imem_base + imem_size). */
struct nic_fwimg_target {
    uint32_t imem_base;
    uint32_t imem_size;
    uint32_t required_major; /* 0: accept any firmware version */
};

enum nic_fwimg_err nic_fwimg_parse(const void *buf, size_t len, const struct nic_fwimg_target *target,
                                   struct nic_fwimg_info *out);

/* Writes the header for payload[0..length) into hdr (NIC_FWIMG_HEADER_SIZE bytes). */
void nic_fwimg_make_header(uint8_t hdr[NIC_FWIMG_HEADER_SIZE], const struct nic_fwimg_info *info,
                           const uint8_t *payload);

const char *nic_fwimg_strerror(enum nic_fwimg_err err);

#endif /* NIC_FWIMAGE_H */
