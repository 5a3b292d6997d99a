# TestLabels.cmake: every test is labelled quick or slow (docs/testing.md), beside its level label.
#   quick: what a developer runs before a commit (scripts/run-tests --quick, under ~2 minutes of
#          tests on 2 cores): the unit, model and generator tests and every short system run
#   slow:  the tests below, measured at more than ~5 s each (CTestCostData.txt of a full run), and
#          the sanitizer job; the full suite (scripts/run-tests) runs both
# Each tests/ directory calls `cmake_language(DEFER CALL nic_speed_labels)` first, so its tests are
# labelled when the directory is done. A new test is quick unless it is added here.
set(NIC_SLOW_TESTS
  core.synth rtl.synth difftest.ci difftest.harness fuzz.fuzz_rx fuzz.fuzz_sqe
  fw.ncp.bench_fast fw.ncp.read_timeout fw.ncp.read_timeout_nofast fw.ncp.read_timeout_nonack
  fw.ncp.read_timeout_static
  nicsim.cache_l8 nicsim.read_bidir_deep nicsim.reglimit_static nicsim.traced_twin nicsim.trap_explained_midrun
  nicsim.eval_smoke nicsim.stream_bidir nicsim.link_bidir_25g nicsim.water4 nicsim.miss_threads
  nicsim.report.partial nicsim.report.option_limits nicsim.report.handshake nicsim.report.perftest
  system.api_close system.api_order system.api_order_nofast system.api_order_seed2 system.close_dead
  system.live_pressure system.live_pressure_s2 system.live_procs8 system.live_rxclean system.live_rxclean_nofast
  system.malicious system.malicious_nofast system.malicious_stamped system.read_dead system.soak
  system.soak_detects system.soak_nofast system.soak_loopback system.soak_loopback_pin
  sanitize.host ci.presets ci.package
  # 4.5-12 s each (measured at 4b9bcf8 on a loaded 2-core machine)
  regmap.rejects_bad_sources difftest.selfcheck fw.ncp.bench_fast_nofast fw.nic.fault_determinism fw.nic.link_faults
  fw.ncp.dma_errors_static system.api_events system.evict system.evict_nofast system.live_loopstorm system.api_storm
  system.sizes system.sizes_static system.sizes_nofast nicsim.link_stream_5g nicsim.stream_read nicsim.pingpong
  nicsim.link_serialisation nicsim.events nicsim.prefill_off nicsim.prefill_on nicsim.stream_faults nicsim.peers_34 nicsim.gdb.raw
  # issue 14 (9-40 s each on a loaded 2-core machine)
  nicsim.incast_nocc nicsim.incast_cc nicsim.incast_ring nicsim.incast_flow nicsim.incast_flow_only nicsim.incast_faults
  # issue 13 item 3 (5-25 s of CPU each)
  nicsim.peer_cache_fft nicsim.peer_cache_faults nicsim.nodes_64 nicsim.nodes_96)

function(nic_speed_labels)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    if(t IN_LIST NIC_SLOW_TESTS)
      set_property(TEST ${t} APPEND PROPERTY LABELS slow)
    else()
      set_property(TEST ${t} APPEND PROPERTY LABELS quick)
    endif()
  endforeach()
endfunction()
