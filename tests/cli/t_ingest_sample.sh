# The bundled sample tree: every file ends up as the generator says
# (tests/cli/expected/sample-logs.counts), and a second run adds nothing.
. tests/cli/lib.sh

cp -r fixtures/sample-logs $T/logs
touch -d '2025-11-16T23:00:00Z' $T/logs/rmm/* $T/logs/inference/vllm_server.log \
	$T/logs/inference/bitnet_metrics.jsonl $T/logs/profiler/nsys_cuda_gpu_trace.csv \
	$T/logs/node/kern.log $T/logs/node/job/nccl.node1.653.log $T/logs/node/job/trainer_state.json \
	$T/logs/node/job/checkpoint-50/trainer_state.json $T/logs/node/eval/lightning_logs/version_0/metrics.csv
cfg=fixtures/sample-logs.ingest.json
out=$("$INGEST" --config $cfg --db $T/db $T/logs 2>&1) || fail "ingest failed: $out"
q $T/db "select substr(f.path, length('$T/logs/') + 1),
	(select count(*) from events e where e.file_id = f.id),
	(select count(*) from mem_events m where m.file_id = f.id),
	(select count(*) from rejects r where r.file_id = f.id and r.line > 0)
	from files f where f.status = 'read' order by 1" | tr '|' ' ' > $T/got
cut -d' ' -f1-4 tests/cli/expected/sample-logs.counts > $T/want
diff $T/want $T/got || fail "per-file counts differ from the generator's"
cont=$(awk '{ s += $5 } END { print s }' tests/cli/expected/sample-logs.counts)
echo "$out" | grep -q " $cont continuation lines" || fail "continuation lines: $out"
expect_eq "skipped files" 2 "$(q $T/db "select count(*) from files where status = 'skipped'")"

# Records written to two files (GPU errors in gpu.log and error.log, gpufl's
# init and shutdown in each channel file) are stored twice, one copy marked
# as the other's mirror; a mirror's samples are not stored again. Which copy
# is the mirror depends on the reading order: totals, from the generator.
totals=tests/cli/expected/sample-logs.totals
expect_eq "mirrored events" "$(sed -n 's/^mirrored //p' $totals)" \
	"$(q $T/db 'select count(*) from events where dup_of is not null')"
expect_eq "samples stored" "$(sed -n 's/^samples_stored //p' $totals)" \
	"$(q $T/db 'select count(*) from v_samples')"
grouped=$(sed -n 's/^samples_stored //p' $totals | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
echo "$out" | grep -q " $grouped metric samples stored" || fail "summary samples ($grouped): $out"
# dcgmi's rows are timed by the config: 60 samples 5 s apart from 16:00 UTC
expect_eq "dcgmi times" "2025-11-16T16:00:00.000Z|2025-11-16T16:04:55.000Z|1" \
	"$(q $T/db "select min(time), max(time), min(v.ts_estimated) from v_samples v where v.path like '%dcgmi.out'")"
# the nsys trace is placed so that its last row ends at the file's mtime
expect_eq "nsys last end" "1763334000000000" \
	"$(q $T/db "select cast(max(ts_us + dur_us) as integer) from v_events where path like '%nsys_cuda_gpu_trace.csv'")"
# spans (gpufl scopes, Kineto annotations) per file
awk '$7 > 0 { print $1, $7 }' tests/cli/expected/sample-logs.counts > $T/want_spans
q $T/db "select substr(path, length('$T/logs/') + 1), count(*) from v_spans group by 1 order by 1" \
	| tr '|' ' ' > $T/got_spans
diff $T/want_spans $T/got_spans || fail "spans per file differ from the generator's"
# per file, where no copy is a mirror: the telemetry and inference files
for f in telemetry/nvidia-smi.csv telemetry/dmon.log telemetry/pmon.log telemetry/dcgmi.out inference/vllm_server.log inference/metrics.prom \
	inference/bitnet_metrics.jsonl inference/receipts/receipt-2025-11-16-cuda.json; do
	expect_eq "$f samples" "$(awk -v f=$f '$1 == f { print $6 }' tests/cli/expected/sample-logs.counts)" \
		"$(q $T/db "select count(*) from v_samples where path = '$T/logs/$f'")"
done

# Time-of-day formats take the date from the file: the RMM CSV starts on
# 2025-11-16 at 09:12 (fixtures/README.md).
expect_eq "rmm csv first time" "2025-11-16T09:12" \
	"$(q $T/db "select substr(min(time), 1, 16) from v_mem_events")"
# Component from the file name when the line has none; the env_logger
# module path when it has one.
expect_eq "legacy component" 0 \
	"$(q $T/db "select count(*) from v_events where path like '%performance_monitor.log' and component is null")"

out=$("$INGEST" --config $cfg --db $T/db $T/logs 2>&1) || fail "second run failed: $out"
echo "$out" | grep -q "0 lines stored" || fail "second run stored lines: $out"
exit 0
