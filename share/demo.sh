#!/bin/sh
# make demo: the main job on the bundled sample logs. Copies
# fixtures/sample-logs to $BUILD/demo/logs, ingests it into
# $BUILD/demo/gpulog.db (twice: the second run shows that nothing is stored
# twice), then reports on the sample's last week into $BUILD/demo/report.
# The build runs it too, with BUILD=build/pgo: the programs compiled with
# counters, whose counts then guide the compilation of the real ones
# (Makefile, PGO).
set -e
BUILD=${BUILD:-build}
D=$BUILD/demo
rm -rf "$D"
mkdir -p "$D"
cp -r fixtures/sample-logs "$D/logs"
# RMM logs carry times of day only, the vLLM log and kern.log no year, BitNet lines,
# NCCL debug files, trainer_state.json, metrics.csv and
# the nsys trace no time of their own: they come from the file's
# modification time, which a git checkout does not keep. dcgmi writes no
# times: the ingest config gives them (fixtures/sample-logs.ingest.json).
touch -d '2025-11-16T23:00:00Z' "$D"/logs/rmm/* "$D"/logs/inference/vllm_server.log \
	"$D"/logs/inference/bitnet_metrics.jsonl "$D"/logs/profiler/nsys_cuda_gpu_trace.csv \
	"$D"/logs/node/kern.log "$D"/logs/node/job/nccl.node1.653.log "$D"/logs/node/job/trainer_state.json \
	"$D"/logs/node/job/checkpoint-50/trainer_state.json "$D"/logs/node/eval/lightning_logs/version_0/metrics.csv
export GPULOG_DB="$D/gpulog.db"

echo "== gpulog-ingest $D/logs"
"$BUILD/bin/gpulog-ingest" --config fixtures/sample-logs.ingest.json "$D/logs" || [ $? -eq 1 ]
echo
echo "== gpulog-ingest $D/logs (again: nothing new)"
"$BUILD/bin/gpulog-ingest" --config fixtures/sample-logs.ingest.json "$D/logs" 2>&1 | grep -v '^gpulog-ingest: skipped'
echo
if [ -x "$BUILD/bin/gpulog-report" ]; then
	echo "== gpulog-report --days 7 --until 2025-11-17"
	"$BUILD/bin/gpulog-report" --days 7 --until 2025-11-17 --format json --output-dir "$D/report"
	"$BUILD/bin/gpulog-report" --days 7 --until 2025-11-17 --format csv --output-dir "$D/report"
	"$BUILD/bin/gpulog-report" --days 7 --until 2025-11-17 --format text
fi
echo
echo "Database: $D/gpulog.db (try: sqlite3 $D/gpulog.db 'select * from v_kernel_stats')"
[ -d "$D/report" ] && echo "Report:   $D/report/" || true
