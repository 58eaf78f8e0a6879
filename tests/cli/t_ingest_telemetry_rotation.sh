# Telemetry files grow and rotate like logs (issue 8): an nvidia-smi
# --query-gpu CSV written with -l (header once) is appended to, re-read,
# rotated by rename, gzipped, and truncated in place by logrotate's
# copytruncate, after which the writer goes on without its header. Every
# row is stored once. Expected counts and sums come from awk over the rows
# this script writes: 2 GPUs per timestamp, 2 readings per row.
. tests/cli/lib.sh

d=$T/logs; mkdir -p $d; db=$T/db
HEADER='timestamp, index, utilization.gpu [%], memory.used [MiB]'
# rows FIRST N: N timestamps (one a second from 10:00:FIRST), two GPUs each
rows() {
	awk -v a="$1" -v n="$2" 'BEGIN {
		for (i = a; i < a + n; i++)
			for (g = 0; g < 2; g++)
				printf("2025/11/16 10:%02d:%02d.000, %d, %d %%, %d MiB\n",
				       int(i / 60), i % 60, g, (i * 7 + g * 13) % 100, 1000 + i + g * 100)
	}'
}
# mem_sum FIRST N: the sum of memory.used over those rows
mem_sum() { rows "$1" "$2" | awk -F', ' '{ sub(/ MiB/, "", $4); s += $4 } END { print s }'; }
samples() { q $db 'select count(*) from v_samples'; }
once() {
	expect_eq "$1: each (series, time) once" "$(samples)" \
		"$(q $db 'select count(*) from (select distinct series_id, ts_us from v_samples)')"
	expect_eq "$1: no rejects" 0 "$(q $db 'select count(*) from rejects')"
}

# 1. 10 timestamps: 20 rows, 40 samples.
{ echo "$HEADER"; rows 0 10; } > $d/gpu.csv
ingest $db $d || fail "run 1"
expect_eq "run 1 samples" 40 "$(samples)"
# 2. 5 more timestamps appended: 20 more samples; a re-run adds nothing.
rows 10 5 >> $d/gpu.csv
ingest $db $d || fail "run 2"
ingest $db $d || fail "run 2 again"
expect_eq "after the append and a re-run" 60 "$(samples)"
once "append"
# 3. 2 timestamps written just before the rotation, not read yet; the file
#    is renamed to gpu.csv.1 and nvidia-smi starts a new gpu.csv (header and
#    3 timestamps): 4 + 6 rows, 20 samples.
rows 15 2 >> $d/gpu.csv
mv $d/gpu.csv $d/gpu.csv.1
{ echo "$HEADER"; rows 17 3; } > $d/gpu.csv
ingest $db $d || fail "run 3"
expect_eq "after the rotation" 80 "$(samples)"
once "rotation"
# 4. The rotated file gzipped: nothing new.
gzip $d/gpu.csv.1
ingest $db $d || fail "run 4"
expect_eq "after gzip" 80 "$(samples)"
# 5. copytruncate: gpu.csv copied to gpu.csv.2 and truncated; nvidia-smi
#    goes on writing rows, without a header: 4 timestamps, 16 samples.
cp -p $d/gpu.csv $d/gpu.csv.2
: > $d/gpu.csv
rows 20 4 >> $d/gpu.csv
out=$("$INGEST" --db $db $d 2>&1) || fail "run 5: $out"
expect_eq "after copytruncate" 96 "$(samples)"
once "copytruncate"
echo "$out" | grep -q "16 metric samples stored" || fail "run 5 summary: $out"
# 6. It grows again, header-less: the stream's state carries on.
rows 24 3 >> $d/gpu.csv
ingest $db $d || fail "run 6"
expect_eq "after the last append" 108 "$(samples)"
once "last append"
# The values: memory in use summed over every row written (timestamps 0-26).
expect_eq "memory.used summed" "$(mem_sum 0 27)" \
	"$(q $db "select cast(sum(value) as integer) from v_samples where metric = 'gpu.memory_used_mib'")"
expect_eq "GPUs and timestamps" "2|27" \
	"$(q $db 'select count(distinct device), count(distinct ts_us) from v_samples')"
exit 0
