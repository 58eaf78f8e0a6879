#!/bin/sh
# The demo report (make demo: fixtures/sample-logs, the week up to
# 2025-11-17) against its golden copy, byte for byte: report.json, report.txt
# and the twelve CSV files. The copy pins the report while its code is
# reshaped (issue 27); it changes only on purpose, with the diff reviewed in
# the commit that changes it. To regenerate it after a deliberate change:
#   GOLDEN_UPDATE=1 BUILD=build sh tests/cli/t_report_golden.sh
. tests/cli/lib.sh
E=tests/cli/expected/demo

# the steps of share/demo.sh, into $T
cp -r fixtures/sample-logs "$T/logs"
# one time for every copy first: the ingest reads files oldest first (then by
# path), and cp's own times follow the order of the checkout's directories
find "$T/logs" -type f -exec touch -d '2026-11-20T00:00:00Z' {} +
touch -d '2025-11-16T23:00:00Z' "$T"/logs/rmm/* "$T"/logs/inference/vllm_server.log \
	"$T"/logs/inference/bitnet_metrics.jsonl "$T"/logs/profiler/nsys_cuda_gpu_trace.csv
"$INGEST" -q --db "$T/g.db" --config fixtures/sample-logs.ingest.json "$T/logs" || [ $? -eq 1 ] ||
	fail "ingest"
for f in json csv; do
	"$REPORT" --db "$T/g.db" --days 7 --until 2025-11-17 --format $f --no-charts \
		--output-dir "$T/r" >/dev/null || fail "report --format $f"
done
"$REPORT" --db "$T/g.db" --days 7 --until 2025-11-17 --format text >"$T/r/report.txt" ||
	fail "report --format text"
if [ -n "${GOLDEN_UPDATE:-}" ]; then
	rm -rf "$E" && mkdir -p "$E" && cp "$T"/r/* "$E"/ && echo "updated $E" && exit 0
fi
n=0
for f in "$E"/*; do
	b=${f##*/}
	cmp -s "$f" "$T/r/$b" || { diff -u "$f" "$T/r/$b" | head -n 40; fail "$b differs from $f"; }
	n=$((n + 1))
done
[ $n -ge 14 ] || fail "only $n golden files in $E"
# nothing written that the golden copy lacks
for f in "$T"/r/*; do
	[ -f "$E/${f##*/}" ] || fail "${f##*/} written, not in $E"
done
echo "ok: $n files as in $E"
