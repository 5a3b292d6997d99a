/*
 * nic_crc32: CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), the checksum of the link MAC's
 * frames and of the firmware flash image.
 *
 * Shared by the firmware, the host driver, the flasher tool and the C models; no allocation,
 * callable from any context. crc32("123456789") == 0xCBF43926.
 */
#ifndef NIC_CRC32_H
#define NIC_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Start value for nic_crc32_update(); finish with nic_crc32_final(). */
#define NIC_CRC32_INIT 0xFFFFFFFFu

uint32_t nic_crc32_update(uint32_t state, const void *data, size_t len);

static inline uint32_t nic_crc32_final(uint32_t state)
{
    return state ^ 0xFFFFFFFFu;
}

/* One-shot CRC of a buffer. */
static inline uint32_t nic_crc32(const void *data, size_t len)
{
    return nic_crc32_final(nic_crc32_update(NIC_CRC32_INIT, data, len));
}

#endif /* NIC_CRC32_H */
