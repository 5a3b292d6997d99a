/*
 * Unit tests of the flash image loader (nic_fwimg_parse): a good image is accepted with its fields,
 * and every kind of damage is rejected with its own error code and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nic_crc32.h"
#include "nic_fwimage.h"

#define PAYLOAD 256u
#define IMEM_BASE 0x0u
#define IMEM_SIZE 0x10000u

static uint8_t img[NIC_FWIMG_HEADER_SIZE + PAYLOAD + 8];
static const struct nic_fwimg_target target = {IMEM_BASE, IMEM_SIZE, 1};

static void build(uint32_t load, uint32_t entry, uint32_t version, uint32_t length)
{
    struct nic_fwimg_info info = {.fw_version = version, .load_addr = load, .entry = entry, .length = length};

    for (size_t i = 0; i < sizeof img; i++)
        img[i] = (uint8_t)(i * 7 + 3);
    nic_fwimg_make_header(img, &info, img + NIC_FWIMG_HEADER_SIZE);
}

static size_t good_len(void)
{
    return NIC_FWIMG_HEADER_SIZE + PAYLOAD;
}

static void fwimage_accepts_good_image(void **state)
{
    struct nic_fwimg_info info;

    (void)state;
    build(0x100, 0x104, 0x00010002, PAYLOAD);
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, &info), NIC_FWIMG_OK);
    assert_int_equal(info.load_addr, 0x100);
    assert_int_equal(info.entry, 0x104);
    assert_int_equal(info.length, PAYLOAD);
    assert_int_equal(info.fw_version, 0x00010002);
    assert_int_equal(info.payload_crc, nic_crc32(img + NIC_FWIMG_HEADER_SIZE, PAYLOAD));
    assert_ptr_equal(info.payload, img + NIC_FWIMG_HEADER_SIZE);
}

static void fwimage_rejects_payload_bit_flip(void **state)
{
    struct nic_fwimg_info info = {0};

    (void)state;
    build(0, 0, 0x00010000, PAYLOAD);
    img[NIC_FWIMG_HEADER_SIZE + 77] ^= 0x10;
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, &info), NIC_FWIMG_ERR_PAYLOAD_CRC);
    assert_int_equal(info.length, 0); /* nothing filled on error */
    assert_non_null(strstr(nic_fwimg_strerror(NIC_FWIMG_ERR_PAYLOAD_CRC), "corrupted"));
}

static void fwimage_rejects_header_damage(void **state)
{
    (void)state;
    build(0, 0, 0x00010000, PAYLOAD);
    img[20] ^= 0x01; /* length field */
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_HEADER_CRC);
    build(0, 0, 0x00010000, PAYLOAD);
    img[0] = 'X';
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_MAGIC);
    build(0, 0, 0x00010000, PAYLOAD);
    img[4] = 9; /* format */
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_FORMAT);
}

static void fwimage_rejects_truncation_and_trailing_bytes(void **state)
{
    (void)state;
    build(0, 0, 0x00010000, PAYLOAD);
    assert_int_equal(nic_fwimg_parse(img, 10, &target, NULL), NIC_FWIMG_ERR_TRUNCATED);
    assert_int_equal(nic_fwimg_parse(img, good_len() - 4, &target, NULL), NIC_FWIMG_ERR_TRUNCATED);
    assert_int_equal(nic_fwimg_parse(img, good_len() + 4, &target, NULL), NIC_FWIMG_ERR_LENGTH);
    build(0, 0, 0x00010000, PAYLOAD - 2);
    assert_int_equal(nic_fwimg_parse(img, good_len() - 2, &target, NULL), NIC_FWIMG_ERR_LENGTH);
}

static void fwimage_rejects_bad_placement_entry_and_version(void **state)
{
    (void)state;
    build(IMEM_SIZE - 128, IMEM_SIZE - 128, 0x00010000, PAYLOAD); /* runs off the end of IMEM */
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_RANGE);
    build(0xFFFFFF00u, 0xFFFFFF00u, 0x00010000, PAYLOAD); /* would wrap a naive end check */
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_RANGE);
    build(0, PAYLOAD, 0x00010000, PAYLOAD); /* entry one past the end */
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_ENTRY);
    build(0, 2, 0x00010000, PAYLOAD);
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_ENTRY);
    build(0, 0, 0x00020000, PAYLOAD);
    assert_int_equal(nic_fwimg_parse(img, good_len(), &target, NULL), NIC_FWIMG_ERR_VERSION);
    /* without a target, only the image's own consistency is checked */
    assert_int_equal(nic_fwimg_parse(img, good_len(), NULL, NULL), NIC_FWIMG_OK);
}

static void fwimage_every_error_has_text(void **state)
{
    (void)state;
    for (int e = 0; e < NIC_FWIMG_ERR__COUNT; e++)
        assert_true(strlen(nic_fwimg_strerror((enum nic_fwimg_err)e)) > 1);
    assert_string_equal(nic_fwimg_strerror(NIC_FWIMG_ERR__COUNT), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fwimage_accepts_good_image),
        cmocka_unit_test(fwimage_rejects_payload_bit_flip),
        cmocka_unit_test(fwimage_rejects_header_damage),
        cmocka_unit_test(fwimage_rejects_truncation_and_trailing_bytes),
        cmocka_unit_test(fwimage_rejects_bad_placement_entry_and_version),
        cmocka_unit_test(fwimage_every_error_has_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
