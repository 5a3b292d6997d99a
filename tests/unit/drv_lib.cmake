# Driver and user-library unit tests against the fake NIC (tests/unit/drv_fake.c), included from
# tests/unit/CMakeLists.txt. The fake uses the real host memory and OS models for the host side.
add_library(drv_fake STATIC ${CMAKE_CURRENT_LIST_DIR}/drv_fake.c)
target_include_directories(drv_fake PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(drv_fake PUBLIC nicdrv sim_os)
target_compile_options(drv_fake PRIVATE ${NIC_C_WARN_FLAGS})

nic_unit_test(drv drv_test.c)
target_link_libraries(test_drv PRIVATE drv_fake)

nic_unit_test(lib lib_test.c)
target_link_libraries(test_lib PRIVATE drv_fake nic)
