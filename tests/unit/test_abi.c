/*
 * test_abi.c - the VMH word helpers of nic_abi.h: the one encoding of a struct nic_vmh_entry as
 * the NCP caches it (valid bit 0, NIC_RIGHT_* >> 3 in bits 4:1, ppn in bits 31:5), checked
 * against the documented layout bit by bit, over every rights combination, at the edges of the
 * ppn's reach, and for everything that must not map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nic_abi.h"

static const uint32_t rights[] = {NIC_RIGHT_LOCAL_READ, NIC_RIGHT_LOCAL_WRITE, NIC_RIGHT_REMOTE_WRITE,
                                  NIC_RIGHT_REMOTE_READ};

static void word_layout_is_the_documented_one(void **state)
{
    (void)state;
    /* ppn 0x123, remote write (0x40 >> 3 = bit 3), valid */
    assert_int_equal(nic_vmh_word(0x123u, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_WRITE), 0x123u << 5 | 0x8u | 0x1u);
    /* all rights: bits 4:1 */
    assert_int_equal(nic_vmh_word(0u, NIC_ENTRY_VALID | NIC_RIGHTS_ALL), 0x1Fu);
    /* the largest ppn fills bits 31:5 */
    assert_int_equal(nic_vmh_word((1u << NIC_VMH_PPN_BITS) - 1u, NIC_ENTRY_VALID), 0xFFFFFFE1u);
}

static void every_rights_combination_round_trips(void **state)
{
    (void)state;
    const uint32_t ppns[] = {0u, 1u, 0x12345u, 0x7FFFFFFu};
    for (unsigned p = 0; p < sizeof ppns / sizeof ppns[0]; p++) {
        for (uint32_t set = 0; set < 16; set++) {
            uint32_t flags = NIC_ENTRY_VALID;
            for (unsigned r = 0; r < 4; r++)
                if (set & (1u << r))
                    flags |= rights[r];
            uint32_t w = nic_vmh_word(ppns[p], flags);
            assert_true(nic_vmh_valid(w));
            assert_int_equal(nic_vmh_rights(w), flags & NIC_RIGHTS_ALL);
            assert_int_equal(nic_vmh_ppn(w), ppns[p]);
            for (unsigned r = 0; r < 4; r++)
                assert_int_equal(!!nic_vmh_allows(w, rights[r]), !!(set & (1u << r)));
            assert_int_equal(nic_vmh_pa(w, 0xABCDE000ull | 0xFEDu), (uint64_t)ppns[p] << 12 | 0xFEDu);
        }
    }
}

static void what_must_not_map_packs_to_nothing(void **state)
{
    (void)state;
    /* no valid bit: nothing, whatever the rights */
    assert_int_equal(nic_vmh_word(0x55u, NIC_RIGHTS_ALL), 0u);
    /* a page beyond the word's reach (512 GiB): not mapped, never a truncated ppn */
    assert_int_equal(nic_vmh_word(1u << NIC_VMH_PPN_BITS, NIC_ENTRY_VALID | NIC_RIGHTS_ALL), 0u);
    assert_int_equal(nic_vmh_word(0xFFFFFFFFu, NIC_ENTRY_VALID | NIC_RIGHT_REMOTE_READ), 0u);
    /* an empty word allows nothing, a valid word without rights allows nothing */
    for (unsigned r = 0; r < 4; r++) {
        assert_false(nic_vmh_allows(0u, rights[r]));
        assert_false(nic_vmh_allows(nic_vmh_word(7u, NIC_ENTRY_VALID), rights[r]));
    }
    assert_true(nic_vmh_valid(nic_vmh_word(7u, NIC_ENTRY_VALID)));
    /* flag bits that are not rights do not leak into the word */
    assert_int_equal(nic_vmh_word(7u, NIC_ENTRY_VALID | 0x0Eu | 0xFF00u), nic_vmh_word(7u, NIC_ENTRY_VALID));
    /* a "right" outside NIC_RIGHTS_ALL is never allowed (the valid bit shifted is not a right) */
    assert_false(nic_vmh_allows(nic_vmh_word(7u, NIC_ENTRY_VALID | NIC_RIGHTS_ALL), 0x8u));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(word_layout_is_the_documented_one),
        cmocka_unit_test(every_rights_combination_round_trips),
        cmocka_unit_test(what_must_not_map_packs_to_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
