# Install.cmake: `cmake --install build [--prefix P]` and CPack's .deb (`cpack --config
# build/CPackConfig.cmake`, or `cmake --build build --target package`), so a board host can
# install the tools, the driver library and the firmware images (issue 17, item 10):
#
#   P/bin/            nicsim, nicsim-trace, nicrun, nicrun-trace, coresim, coresim-trace, fwimage
#   P/lib/            libnic.a (user library), libnicdrv.a (driver), libnic_hal.a (CRC, image format)
#   P/include/nic/    nic.h, nicdrv*.h, nic_abi.h, nic_fwimage.h, nic_crc32.h, nic_mmio.h and the
#                     generated nic_regs.h, nic_memmap.h
#   P/share/nic/fw/, fw-static/, fw-nonack/   the NCP flash images (ncp.img), their ELFs (trap
#                     symbolisation) and .mem reports; fw/ also the firmware test images (nicrun)
#   P/share/doc/nic/  README.md and docs/*.md
#
# nicsim looks for its images next to its own directory (../fw, the build tree) and then in
# ../share/nic (an installed tree).
include(GNUInstallDirs)
# Installing (and CPack, which installs) takes what is built: it does not build `all` first, so
# the test ci.package never builds into build/ while other tests use it. Build first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
set(_nic_tools nicsim nicsim-trace nicrun nicrun-trace fwimage)
if(TARGET coresim)
  list(APPEND _nic_tools coresim coresim-trace)
endif()
install(TARGETS ${_nic_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(TARGETS nic nicdrv nic_hal ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES host-driver/include/nic.h host-driver/include/nicdrv.h host-driver/include/nicdrv_bus.h
              host-driver/include/nicdrv_host.h hal/include/nic_abi.h hal/include/nic_fwimage.h
              hal/include/nic_crc32.h hal/include/nic_mmio.h ${NIC_GEN_DIR}/nic_regs.h ${NIC_GEN_DIR}/nic_memmap.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nic COMPONENT dev)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools FILES_MATCHING PATTERN "*.md")
# The images are built by ExternalProject trees, so they are collected when installing.
foreach(_t fw fw-static fw-nonack)
  if(_t STREQUAL "fw")
    set(_pat "*.img;*.elf;*.mem")
  else()
    set(_pat "ncp.img;ncp.elf;ncp.mem")
  endif()
  install(CODE "
    set(_files)
    foreach(_p ${_pat})
      file(GLOB _g \"${CMAKE_BINARY_DIR}/${_t}/\${_p}\")
      list(APPEND _files \${_g})
    endforeach()
    list(FIND _files \"${CMAKE_BINARY_DIR}/${_t}/ncp.img\" _at)
    if(_at LESS 0)
      message(FATAL_ERROR \"${CMAKE_BINARY_DIR}/${_t}/ncp.img missing: build first (scripts/build)\")
    endif()
    file(INSTALL \${_files} DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/nic/${_t}\")
  " COMPONENT firmware)
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nic-tools)
set(CPACK_PACKAGE_VENDOR "nic project")
set(CPACK_PACKAGE_CONTACT "nic project <nic@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NIC simulator tools, host driver library and NCP firmware images")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # libcjson1, libstdc++6, libc6 ... from the binaries
include(CPack)
