/* placeholder */
#include "scen.h"
static void boots(void **state) { (void)state; assert_int_equal(fh_fw_state(), 1); }
int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test_setup(boots, scen_setup)};
    return FWH_RUN_TESTS("responder", tests) ? 1 : 0;
}
