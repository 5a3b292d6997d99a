# newlib for the NIC's core, and the firmware project, as external projects of the host build.
#
# newlib: configured from Debian's newlib-source tarball for rv32im/ilp32 with nano formatted I/O,
# small reentrancy structures and no supplied syscalls (the firmware's rt/syscalls.c provides
# them). It is built once into build/newlib/ and reused until the build tree is removed (about
# 40 s on two cores).
include(ExternalProject)

set(NEWLIB_PREFIX ${CMAKE_BINARY_DIR}/newlib/install)
set(NEWLIB_CFLAGS "-march=rv32im -mabi=ilp32 -O2 -g -ffunction-sections -fdata-sections -mcmodel=medlow")
ExternalProject_Add(newlib
  URL ${NEWLIB_SOURCE_TARBALL}
  PREFIX ${CMAKE_BINARY_DIR}/newlib
  INSTALL_DIR ${NEWLIB_PREFIX}
  CONFIGURE_COMMAND <SOURCE_DIR>/configure --target=riscv64-unknown-elf --prefix=<INSTALL_DIR>
      --disable-multilib --disable-nls
      --enable-newlib-nano-formatted-io --enable-newlib-reent-small --disable-newlib-supplied-syscalls
      --enable-newlib-nano-malloc --enable-lite-exit --enable-newlib-global-atexit
      CC_FOR_TARGET=${RISCV_CC} "CFLAGS_FOR_TARGET=${NEWLIB_CFLAGS}"
  BUILD_COMMAND make -j2 all-target-newlib
  INSTALL_COMMAND make install-target-newlib
  BUILD_BYPRODUCTS ${NEWLIB_PREFIX}/riscv64-unknown-elf/lib/libc.a
  LOG_CONFIGURE ON LOG_BUILD ON LOG_INSTALL ON LOG_OUTPUT_ON_FAILURE ON
  DOWNLOAD_EXTRACT_TIMESTAMP ON)

# ncp_firmware_tree(TARGET DIR [OPTION=VALUE...]): one cross build of firmware/ (the NCP and
# every firmware test image) with the cache's NCP_* options, overridden by the ones given.
function(ncp_firmware_tree target dir)
  set(args)
  foreach(opt ${NCP_FW_OPTIONS})
    set(val "${${opt}}")
    foreach(ov ${ARGN})
      if(ov MATCHES "^${opt}=(.*)$")
        set(val "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    list(APPEND args -D${opt}=${val})
  endforeach()
  ExternalProject_Add(${target}
    SOURCE_DIR ${CMAKE_SOURCE_DIR}/firmware
    BINARY_DIR ${dir}
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/riscv32-toolchain.cmake
      -DCMAKE_BUILD_TYPE=Release
      -DNIC_SOURCE_DIR=${CMAKE_SOURCE_DIR}
      -DNIC_GEN_DIR=${NIC_GEN_DIR}
      -DNEWLIB_PREFIX=${NEWLIB_PREFIX}
      -DNIC_FWIMAGE=$<TARGET_FILE:fwimage>
      -DNIC_PYTHON=${Python3_EXECUTABLE}
      ${args}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    DEPENDS newlib fwimage nic_hwmap)
endfunction()

# The build configured by the cache options (build/fw/), and the static-lookup baseline of the
# seed from the same sources (build/fw-static/), so tests cover both.
set(NCP_FW_DIR ${CMAKE_BINARY_DIR}/fw)
set(NCP_FW_STATIC_DIR ${CMAKE_BINARY_DIR}/fw-static)
ncp_firmware_tree(firmware ${NCP_FW_DIR})
ncp_firmware_tree(firmware-static ${NCP_FW_STATIC_DIR} NCP_LOOKUP=static)
ncp_firmware_tree(firmware-nonack ${CMAKE_BINARY_DIR}/fw-nonack NCP_NACK=OFF)
