/* Unit tests of nic_crc32: the standard check value, incremental use, and sensitivity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nic_crc32.h"

static void crc32_check_value(void **state)
{
    (void)state;
    assert_int_equal(nic_crc32("123456789", 9), 0xCBF43926u);
    assert_int_equal(nic_crc32("", 0), 0x00000000u);
    assert_int_equal(nic_crc32("a", 1), 0xE8B7BE43u);
}

static void crc32_incremental_equals_one_shot(void **state)
{
    static const char msg[] = "The quick brown fox jumps over the lazy dog";
    uint32_t s = NIC_CRC32_INIT;

    (void)state;
    for (size_t i = 0; i < sizeof msg - 1; i += 5)
        s = nic_crc32_update(s, msg + i, sizeof msg - 1 - i < 5 ? sizeof msg - 1 - i : 5);
    assert_int_equal(nic_crc32_final(s), 0x414FA339u);
    assert_int_equal(nic_crc32(msg, sizeof msg - 1), 0x414FA339u);
}

static void crc32_detects_every_single_bit_flip(void **state)
{
    uint8_t buf[64];
    uint32_t good;

    (void)state;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    good = nic_crc32(buf, sizeof buf);
    for (size_t bit = 0; bit < sizeof buf * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_not_equal(nic_crc32(buf, sizeof buf), good);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc32_check_value),
        cmocka_unit_test(crc32_incremental_equals_one_shot),
        cmocka_unit_test(crc32_detects_every_single_bit_flip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
