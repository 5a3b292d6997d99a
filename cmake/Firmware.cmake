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
# NCP_ONLY: a variant tree that builds only ncp.img and only on request.
function(ncp_firmware_tree target dir)
  cmake_parse_arguments(T "NCP_ONLY" "" "" ${ARGN})
  set(args)
  set(extra)
  if(T_NCP_ONLY)
    # A variant: only the NCP image, built only when asked for (the evaluation's grid).
    # $(MAKE): the sub-make joins the parent's jobserver (the build uses Unix Makefiles)
    set(extra EXCLUDE_FROM_ALL TRUE BUILD_COMMAND $(MAKE) ncp)
  endif()
  foreach(opt ${NCP_FW_OPTIONS})
    set(val "${${opt}}")
    foreach(ov ${T_UNPARSED_ARGUMENTS})
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
    ${extra}
    DEPENDS newlib fwimage nic_hwmap)
endfunction()

# The build configured by the cache options (build/fw/), and the static-lookup baseline of the
# seed from the same sources (build/fw-static/), so tests cover both.
set(NCP_FW_DIR ${CMAKE_BINARY_DIR}/fw)
set(NCP_FW_STATIC_DIR ${CMAKE_BINARY_DIR}/fw-static)
ncp_firmware_tree(firmware ${NCP_FW_DIR})
ncp_firmware_tree(firmware-static ${NCP_FW_STATIC_DIR} NCP_LOOKUP=static)
ncp_firmware_tree(firmware-nonack ${CMAKE_BINARY_DIR}/fw-nonack NCP_NACK=OFF)
# The general paths only (NCP_FASTPATH=OFF, build/fw-nofast/): the firmware and system tests that
# move data run on it too (label nofast), so a rule kept only in a fast path shows up as a failure.
ncp_firmware_tree(firmware-nofast ${CMAKE_BINARY_DIR}/fw-nofast NCP_FASTPATH=OFF)
# Data frames handed to the MAC only once their payload is in (NCP_TX_GATE=OFF, build/fw-nogate/;
# the default gates them on their payload's DMA in the MAC, issue 12): the A/B image of
# docs/firmware.md "Frames gated on their payload's DMA"; test nicsim.tx_nogate_stream_faults.
ncp_firmware_tree(firmware-nogate ${CMAKE_BINARY_DIR}/fw-nogate NCP_ONLY NCP_TX_GATE=OFF)

# The evaluation's cache-geometry grid (seed 000, Fig. 5/6): one NCP-only tree per C x L x A in
# build/fwvar/cC-lL-aA/, built on request by `cmake --build build --target fw-grid` (or one
# variant: fwvar-c16384-l64-a4). nicsim --cache C,L,A picks the image from there.
# C 1K/2K/4K: the same grid scaled down, for working sets a simulation can afford (scripts/eval).
set(NCP_GRID_C 1024 2048 4096 8192 16384 32768)
set(NCP_GRID_L 8 16 64 128)
set(NCP_GRID_A 2 4 8)
add_custom_target(fw-grid)
foreach(c ${NCP_GRID_C})
  foreach(l ${NCP_GRID_L})
    foreach(a ${NCP_GRID_A})
      set(v c${c}-l${l}-a${a})
      ncp_firmware_tree(fwvar-${v} ${CMAKE_BINARY_DIR}/fwvar/${v} NCP_ONLY
                        NCP_CACHE_ENTRIES=${c} NCP_CACHE_LINE=${l} NCP_CACHE_WAYS=${a})
      add_dependencies(fw-grid fwvar-${v})
    endforeach()
  endforeach()
endforeach()

# The NACK/RESUME vs timeout sweep (scripts/eval, group rto; issue 16 item 6): the NCP with other
# retransmission timeouts, NACK mode and seed-faithful timeout mode, in build/fwrto/{nack,nonack}-rtoUS/,
# built on request (fwrto-nonack-rto50 ...; all: fw-rto). The default RTO (200 us) is build/fw and
# build/fw-nonack. nicsim runs one with --fw IMAGE (--nack off for the timeout mode).
set(NCP_RTO_SWEEP_US 50 100 500 1000)
add_custom_target(fw-rto)
foreach(us ${NCP_RTO_SWEEP_US})
  foreach(mode nack nonack)
    if(mode STREQUAL "nack")
      set(nk ON)
    else()
      set(nk OFF)
    endif()
    ncp_firmware_tree(fwrto-${mode}-rto${us} ${CMAKE_BINARY_DIR}/fwrto/${mode}-rto${us} NCP_ONLY
                      NCP_RTO_US=${us} NCP_NACK=${nk})
    add_dependencies(fw-rto fwrto-${mode}-rto${us})
  endforeach()
endforeach()

# One small-line variant is part of every build: the test nicsim.cache_l8 runs the driver against
# a VMH line of 8 entries (the seed grid's smallest line), which the driver once refused.
add_custom_target(fwvar-ci ALL)
add_dependencies(fwvar-ci fwvar-c1024-l8-a2)

# The debug build with state-transition traces (NCP_TRACE_STATES): the test fw.ncp.trace_states
# checks the trace on a small run.
ncp_firmware_tree(firmware-trace ${CMAKE_BINARY_DIR}/fw-trace NCP_ONLY NCP_TRACE_STATES=ON)
add_dependencies(fwvar-ci firmware-trace)
add_dependencies(fwvar-ci firmware-nogate)
