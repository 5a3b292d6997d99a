#!/bin/sh
# sanitize_host.sh SRC DIR [BIN FW]: configure DIR with the asan preset (CMakePresets.json), build
# the host tests (target host-tests), check that the canaries are caught, run the unit, model and
# fwhost tests under ASan + UBSan; with BIN (the regular build's tools) and FW (its firmware
# images), build nicsim and nicrun in DIR too and run sanitize_cluster.py's clusters with both.
# Exit 0 only when all of it holds.
set -u
src=$1 dir=$2 bin=${3:-} fw=${4:-}
log=$dir.log
cmake -S "$src" --preset asan -B "$dir" >"$log" 2>&1 || { cat "$log"; echo "sanitize: configure failed"; exit 1; }
cmake --build "$dir" -j2 --target host-tests >>"$log" 2>&1 || { tail -50 "$log"; echo "sanitize: build failed"; exit 1; }
canary=$dir/bin/sanitize_canary
out=$("$canary" heap 2>&1); rc=$?
if [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "AddressSanitizer: heap-buffer-overflow"; then
    echo "sanitize: ASan did not catch the canary's heap overflow (exit $rc): $out"; exit 1
fi
out=$("$canary" signed 2>&1); rc=$?
if [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "runtime error: signed integer overflow"; then
    echo "sanitize: UBSan did not catch the canary's signed overflow (exit $rc): $out"; exit 1
fi
"$canary" || { echo "sanitize: the canary fails without a bug"; exit 1; }
echo "sanitize: the canaries are caught (ASan heap-buffer-overflow, UBSan signed overflow)"
n=$(ctest --test-dir "$dir" -N -L '^(unit|models|fwhost)$' | sed -n 's/^Total Tests: //p')
if [ "${n:-0}" -lt 20 ]; then
    echo "sanitize: only ${n:-0} host tests found in $dir"; exit 1
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" -L '^(unit|models|fwhost)$' -j2 --output-on-failure --timeout 300 || exit 1
[ -n "$bin" ] || exit 0
cmake --build "$dir" -j2 --target nicsim nicrun >>"$log" 2>&1 || { tail -50 "$log"; echo "sanitize: build of nicsim/nicrun failed"; exit 1; }
python3 "$src/tests/ci/sanitize_cluster.py" "$dir/bin" "$bin" "$fw" "$dir/cluster"
