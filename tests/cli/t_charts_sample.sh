#!/bin/sh
# gpulog-report's charts on the bundled sample tree, ingested by
# gpulog-ingest, with three kernels added whose names a chart or a page can
# get wrong: '<script>alert(1)</script>', unicode, and a C++ template name
# of 300 characters. The PNGs decode at 1600x900 and are not blank
# (build/bench/pngcheck, the unit tests' decoder); the same input gives the
# same bytes; index.html holds exactly the images next to it, byte for
# byte, and log text escaped.
. tests/cli/lib.sh
PNGCHECK=$BUILD/bench/pngcheck
[ -x "$PNGCHECK" ] || fail "$PNGCHECK not built"
command -v base64 >/dev/null 2>&1 || skip "base64 (coreutils) missing"

cp -r fixtures/sample-logs $T/logs
touch -d '2025-11-16T23:00:00Z' $T/logs/rmm/*
long="mlir::gpu::detail::LaunchKernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GemmShape<128, 128, 32>, cutlass::epilogue::thread::LinearCombination<float, 4, float, float>, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, 3, 4, 4, true>>(float const*, float*, int)"
for i in 0 1 2 3 4 5; do
	for k in '<script>alert(1)</script>' 'softmax_ünicødé_日本 & \"co\"' "$long"; do
		printf '{"timestamp": "2025-11-15T1%d:00:00.000000Z", "level": "INFO", "component": "gpu", "message": "Kernel executed", "gpu_metrics": {"kernel_name": "%s", "execution_time_us": 5000%d.5}}\n' \
			"$i" "$k" "$i"
	done
done >> $T/logs/gpu.log
"$INGEST" -q --db $T/db $T/logs 2>/dev/null || [ $? -eq 1 ] || fail "ingest"
expect_eq "script kernel stored" 6 \
	"$(q $T/db "select count(*) from v_events where kernel = '<script>alert(1)</script>'")"

# in the order of the sections (index.html shows each chart next to its section's table)
# (no inference.png: the window's only inference figures are the BitNet-rs
# receipt's run totals of 2025-11-16, which are no request; the vLLM and
# BitNet-rs lines are placed at the files' mtimes, outside the window here)
pngs="kernel_performance_timeline.png kernel_performance_distribution.png kernel_trends.png
memory_usage_trend.png error_rate.png scopes.png training_loss.png training_iteration.png
baseline_comparison.png"
for d in a b; do
	"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format json --output-dir $T/$d \
		>$T/$d.out || fail "report $d"
done
for f in $pngs; do
	"$PNGCHECK" $T/a/$f 1600 900 >/dev/null || fail "$(
		"$PNGCHECK" $T/a/$f 1600 900)"
	grep -qx "$T/a/$f" $T/a.out || fail "$f not printed"
	cmp -s $T/a/$f $T/b/$f || fail "$f: not the same bytes for the same input"
done

expect_eq "files in the directory" 12 "$(ls $T/a | wc -l)"

# index.html: one page, the images that exist, inline and identical
h=$T/a/index.html
[ "$(head -c 15 $h)" = "<!DOCTYPE html>" ] || fail "doctype"
expect_eq "html open/close" "1 1" "$(grep -c '<html' $h) $(grep -c '</html>' $h)"
expect_eq "images" 10 "$(grep -o '<img ' $h | wc -l)"
grep -q '<script' $h && fail "a <script> element in the page"
grep -Eq '(src|href)="https?:' $h && fail "an external asset"
grep -o '<figcaption class="muted"><a href="[^"]*">[^<]*</a></figcaption>' $h | sed 's/<[^>]*>//g' > $T/captions
expect_eq "captions" "$(echo $pngs | tr ' ' '\n' | sed 's/^scopes.png$/gpu_telemetry.png\n&/')" "$(cat $T/captions)"
for f in $pngs; do
	id=${f%.png}
	case $id in scopes | inference) id=chart-$id ;; esac	# not its section's id again
	# the image links to its full-size PNG, a file beside the page
	grep -q "<figure id=\"$id\"><a href=\"$f\"><img " $h || fail "$f: image not a link to its PNG"
	grep -o "<figure id=\"$id\"><a href=\"$f\"><img [^>]*>" $h | sed 's/.*base64,\([^"]*\)".*/\1/' |
		base64 -d > $T/img.png || fail "$f: base64"
	cmp -s $T/img.png $T/a/$f || fail "$f: inline image differs from the file"
done
# log text escaped: the kernel stays text, the unicode one is kept
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' $h || fail "script kernel not escaped"
grep -q 'softmax_ünicødé_日本 &amp; &quot;co&quot;' $h || fail "unicode kernel"
grep -q 'alert(1)</script>' $h && fail "raw script text"

# --chart-top: only range-checked here (the unit tests count the panels)
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --chart-top 13 >/dev/null 2>&1
expect_eq "--chart-top 13" 2 "$?"
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --chart-top 3 --format json \
	--output-dir $T/c >/dev/null || fail "--chart-top 3"
"$PNGCHECK" $T/c/kernel_performance_timeline.png 1600 900 >/dev/null || fail "top 3 timeline"
cmp -s $T/a/kernel_performance_timeline.png $T/c/kernel_performance_timeline.png &&
	fail "--chart-top 3 drew the same timeline as 8"
exit 0
