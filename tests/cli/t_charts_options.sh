#!/bin/sh
# When gpulog-report writes charts: with json/csv into the output
# directory (given or dated); never with --no-charts (no PNG, no
# index.html); not for text to stdout; an empty window still gives six
# charts that say so, and exit 0.
. tests/cli/lib.sh
PNGCHECK=$BUILD/bench/pngcheck
[ -x "$PNGCHECK" ] || fail "$PNGCHECK not built"

cp -r fixtures/sample-logs $T/logs
touch -d '2025-11-16T23:00:00Z' $T/logs/rmm/*
"$INGEST" -q --db $T/db $T/logs 2>/dev/null || [ $? -eq 1 ] || fail "ingest"
# in the order of the sections (index.html shows each chart next to its section's table)
pngs="kernel_performance_timeline.png kernel_performance_distribution.png kernel_trends.png
memory_usage_trend.png error_rate.png scopes.png training_loss.png training_iteration.png
baseline_comparison.png"

# --no-charts: the report files only
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format json --output-dir $T/n --no-charts \
	> $T/n.out || fail "--no-charts rc"
expect_eq "--no-charts files" "report.json" "$(ls $T/n)"
expect_eq "--no-charts printed" "$T/n/report.json" "$(cat $T/n.out)"
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format csv --output-dir $T/nc --no-charts \
	>/dev/null || fail "--no-charts csv rc"
ls $T/nc | grep -Eq '\.png$|index\.html' && fail "--no-charts csv wrote charts: $(ls $T/nc)"

# csv: the charts next to the csv files
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format csv --output-dir $T/c >/dev/null ||
	fail "csv rc"
for f in $pngs; do
	"$PNGCHECK" $T/c/$f 1600 900 >/dev/null || fail "csv: $f"
done
[ -s $T/c/index.html ] || fail "csv: index.html"

# the dated default directory gets them too
(cd $T && "$REPORT" --db db --until 2025-11-17 --days 7 --format json >/dev/null) || fail "dated rc"
[ -s $T/gpulog-reports/2025-11-17/index.html ] || fail "dated index.html"
[ -s $T/gpulog-reports/2025-11-17/error_rate.png ] || fail "dated chart"

# text to stdout: no file at all, in the working directory or elsewhere
mkdir $T/cwd
(cd $T/cwd && "$REPORT" --db ../db --until 2025-11-17 --days 7 --format text >../t.txt) ||
	fail "text rc"
expect_eq "text to stdout writes no file" "" "$(ls -A $T/cwd)"
grep -q '^Kernels by total time' $T/t.txt || fail "text report"
# text into a directory: report.txt with the charts
"$REPORT" --db $T/db --until 2025-11-17 --days 7 --format text --output-dir $T/t >/dev/null ||
	fail "text dir rc"
[ -s $T/t/index.html ] || fail "text dir: index.html"

# an empty window: exit 0, charts that are not blank, a page without alerts;
# no comparison with the previous window (nothing ran in both: a sentence instead)
"$REPORT" --db $T/db --until 2020-01-02 --days 1 --format json --output-dir $T/e \
	>/dev/null 2>$T/err || fail "empty window rc"
grep -q 'no events' $T/err || fail "empty window note"
[ -e $T/e/baseline_comparison.png ] && fail "empty window: an empty baseline_comparison.png"
grep -q 'No kernel ran in both this and the previous window' $T/e/index.html ||
	fail "empty window: no sentence for the comparison"
for f in ${pngs%baseline_comparison.png}; do
	"$PNGCHECK" $T/e/$f 1600 900 >/dev/null || fail "empty window: $f"
	# a "no data" chart is not the chart of the full window
	cmp -s $T/e/$f $T/c/$f && fail "empty window: $f same as with data"
done
expect_eq "empty window images" 9 "$(grep -o '<img ' $T/e/index.html | wc -l)"
# every "no data" chart carries its own title: eight different files
expect_eq "distinct empty charts" 8 "$(cd $T/e && cksum ${pngs%baseline_comparison.png} | cut -d' ' -f1 | sort -u | wc -l)"
exit 0
