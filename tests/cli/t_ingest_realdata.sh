# Real logs from ../shared/realdata (when present): every RMM sample is read
# without a single reject; GPU flight recorder NDJSON is read (fmt_gpufl.c:
# its init and shutdown lines are events), the two BitNet-rs inference
# receipts are one event each (fmt_jsondoc.c); vLLM logs and Prometheus scrapes are read (fmt_vllm.c,
# fmt_prom.c).
. tests/cli/lib.sh
[ -d "$REALDATA/rmm" ] || skip "no real data at $REALDATA"

out=$("$INGEST" --db $T/db "$REALDATA/rmm" 2>&1) || fail "ingest failed: $out"
expect_eq "rejects" 0 "$(q $T/db 'select count(*) from rejects')"
# Independent counts: every line of the debug logs is a record; the CSV has
# a header and 2 rows.
lines=$(cat "$REALDATA"/rmm/debug_logs/*/rmm_log.txt | wc -l | tr -d ' ')
expect_eq "debug log events" "$lines" "$(q $T/db 'select count(*) from events')"
expect_eq "memory events" 2 "$(q $T/db 'select count(*) from mem_events')"
errs=$(cat "$REALDATA"/rmm/debug_logs/*/rmm_log.txt | grep -c '\[error \]')
expect_eq "error events" "$errs" "$(q $T/db "select count(*) from v_events where level = 'ERROR'")"
expect_eq "failures carry their size" "$errs" \
	"$(q $T/db "select count(*) from events where json_extract(metadata, '$.upstream_bytes') > 0")"

if [ -d "$REALDATA/gpufl" ]; then
	out=$("$INGEST" --db $T/db2 "$REALDATA/gpufl" "$REALDATA/bitnet-rs" 2>&1) || fail "ingest gpufl: $out"
	expect_eq "gpufl rejects" 0 "$(q $T/db2 'select count(*) from rejects')"
	expect_eq "skipped" 0 "$(q $T/db2 "select count(*) from files where status = 'skipped'")"
	# every gpufl file opens with init and closes with shutdown
	n=$(cat $(find "$REALDATA/gpufl" -type f) | grep -c '"type":"\(init\|shutdown\)"')
	expect_eq "gpufl init/shutdown events" "$n" "$(q $T/db2 "select count(*) from v_events where component <> 'bitnet'")"
	# the receipts, read by hand: ci/inference.json "timestamp":
	# "2025-10-23T00:39:09.569365214+00:00" = 1761179949 s (python3
	# calendar.timegm) + .569365 s; the baseline 2025-10-15T19:41:18.920441642
	# = 1760557278 s + .920441 s; both 1 token at 0.0 tokens/s on cpu
	expect_eq "receipts" "1761179949569365|bitnet|receipt: 1 tokens at 0 tokens/s (cpu)
1760557278920441|bitnet|receipt: 1 tokens at 0 tokens/s (cpu)" \
		"$(q $T/db2 "select ts_us, component, message from v_events where component = 'bitnet' order by path")"
	expect_eq "receipt samples" "1760557278920441|inference.tokens_generated|1.0|{\"backend_type\":\"cpu\"}
1760557278920441|inference.tokens_per_second|0.0|{\"backend_type\":\"cpu\"}
1761179949569365|inference.tokens_generated|1.0|{\"backend_type\":\"cpu\"}
1761179949569365|inference.tokens_per_second|0.0|{\"backend_type\":\"cpu\"}" \
		"$(q $T/db2 "select ts_us, metric, value, labels from v_samples where metric like 'inference.%' order by ts_us, metric")"
fi

# vLLM server logs (fmt_vllm.c): counts from wc/grep, see SOURCES.md
if [ -d "$REALDATA/inference-server-logs" ]; then
	L="$REALDATA/inference-server-logs"
	out=$("$INGEST" --db $T/db3 "$L" 2>&1) || fail "ingest vllm logs: $out"
	expect_eq "vllm files" 4 "$(q $T/db3 "select count(*) from v_files where format = 'vllm'")"
	# grep -ac: 122 + 181 + 65 + 25 throughput lines; DaisukeTakai's 25th
	# sits behind 125,485 NUL bytes (a hole, no newline before the line):
	# the hole is a reject, the line is stored (issue 28, D7)
	n=$(cat "$L"/*/*/server.log "$L"/*/vllm.log | grep -ac 'Avg prompt throughput')
	expect_eq "throughput lines" 393 "$n"
	expect_eq "generation throughput samples" $n \
		"$(q $T/db3 "select count(*) from v_samples where metric = 'vllm.generation_throughput_tps'")"
	expect_eq "NUL reject" 1 "$(q $T/db3 "select count(*) from rejects where reason like 'NUL%'")"
	n=$(grep -ac 'SpecDecoding metrics' "$L"/sostrowsk*/vllm.log)
	expect_eq "spec decode samples" "$n" \
		"$(q $T/db3 "select count(*) from v_samples where metric = 'vllm.spec_decode_acceptance_rate_pct'")"
	# every line of the 0.15.0 log (wc -l) is an event
	n=$(cat "$L"/*/vllm-0.15.0*/server.log | wc -l | tr -d ' ')
	expect_eq "0.15.0 events" "$n" "$(q $T/db3 "select count(*) from v_events where path like '%0.15.0%'")"
	# first throughput line of 0.15.0, by hand: 8149.1 tokens/s at 02-04 11:28:51
	expect_eq "first prompt throughput" 8149.1 "$(q $T/db3 "select value from v_samples
		where metric = 'vllm.prompt_throughput_tps' and path like '%0.15.0%' order by ts_us limit 1")"
	# the report's requests and failed from the access lines (grep -acE): POSTs to
	# /v1/ answered, those with a status of 400 or more failed
	req=$(cat "$L"/*/*/server.log "$L"/*/vllm.log | grep -acE '"POST /v1/[^"]* HTTP/[^"]*" [1-5][0-9][0-9] ')
	bad=$(cat "$L"/*/*/server.log "$L"/*/vllm.log | grep -acE '"POST /v1/[^"]* HTTP/[^"]*" [45][0-9][0-9] ')
	"$REPORT" --db $T/db3 --since 2001-01-01 --until 2100-01-01 --format json --no-charts \
		--output-dir $T/r3 >/dev/null 2>&1 || fail "report on the vLLM logs"
	expect_eq "requests, failed from access lines" "$req $bad access_lines" "$(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["inference"]
print("%d %d %s" % (i["requests"], i["failed"], i["failed_from"]))' $T/r3/report.json)"
else
	echo "skipped: no vLLM logs at $REALDATA"
fi

# Prometheus scrapes (fmt_prom.c): every non-comment line is a sample (grep -vc '^#')
if [ -d "$REALDATA/inference-prom" ]; then
	out=$("$INGEST" --db $T/db4 "$REALDATA/inference-prom" "$REALDATA/dcgm-exporter-prom" 2>&1) ||
		fail "ingest scrapes: $out"
	n=$(cat $(find "$REALDATA/inference-prom" "$REALDATA/dcgm-exporter-prom" -type f) | grep -vc '^#')
	expect_eq "prom samples" "$n" "$(q $T/db4 "select count(*) from v_samples")"
	expect_eq "prom rejects" 0 "$(q $T/db4 "select count(*) from rejects")"
	n=$(cat "$REALDATA"/dcgm-exporter-prom/*/*.prom | grep -c '^DCGM_FI_DEV_GPU_UTIL')
	expect_eq "dcgm utilization samples" "$n" \
		"$(q $T/db4 "select count(*) from v_samples where metric = 'gpu.utilization_pct' and device is not null")"
	expect_eq "empty label kept" 4 \
		"$(q $T/db4 "select count(*) from v_samples where json_extract(labels, '$.pod_uid') = ''")"
fi
exit 0
