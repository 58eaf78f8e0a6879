# One-document JSON files (fmt_jsondoc.c): the performance monitor's
# metrics_history.json rewritten in place three times stores each entry
# once; alert_<ts>.json files overwriting each other within a second; a
# document cut in the middle is no record, and a history cut at the end of
# a settled file is a reject said once; a Kineto trace is not taken.
. tests/cli/lib.sh
command -v python3 >/dev/null || skip "skipped: python3 absent"
D=$T/echo_stats
mkdir -p $D

# history(N, K): entries K..N-1 (entry i at 1718000000 + 60 i seconds, two
# components) and an alert every 4th entry, written as the monitor does:
# json.dump(indent=2), rewriting the file in place (same inode). The
# second rewrite only appends (its first lines are the first file's: a
# branch of the old stream, stream.c); the third drops the oldest entries
# (a rolling window: a new stream whose old entries are mirrors).
history() {
	python3 - "$D/metrics_history.json" "$1" "$2" <<'PY'
import json, sys
path, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
m = [{"timestamp": 1718000000 + 60 * i, "component_id": "echo_core" if i % 2 == 0 else "echo_mem",
      "cpu_usage": 10.5 + i, "token_throughput": 100 + 3 * i, "gpu_utilization": (i * 7) % 100,
      "status": "ok"} for i in range(k, n)]
a = [{"timestamp": 1718000000 + 60 * i + 0.25, "severity": "warning", "component": "echo_core",
      "message": "High CPU usage %d" % i, "metric": "cpu_usage", "value": 10.5 + i, "threshold": 10.0}
     for i in range(0, n, 4) if i >= k]
with open(path, "r+" if n > 5 else "w") as f:
    f.seek(0)
    json.dump({"metrics": m, "alerts": a}, f, indent=2)
    f.truncate()
PY
}
# the expected rows, computed apart from gpulog
expect() {
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
print(n, 3 * n, sum(10.5 + i for i in range(n)), sum(100 + 3 * i for i in range(n)),
      sum((i * 7) % 100 for i in range(n)), len(range(0, n, 4)))
PY
}
got() {
	echo "$(q $T/db "select count(*) from events where dup_of is null and message like 'metrics of %'")" \
	     "$(q $T/db "select count(*) from v_samples where labels like '%component_id%'")" \
	     "$(q $T/db "select printf('%.1f', sum(value)) from v_samples where metric = 'cpu_usage'")" \
	     "$(q $T/db "select printf('%g', sum(value)) from v_samples where metric = 'token_throughput'")" \
	     "$(q $T/db "select printf('%g', sum(value)) from v_samples where metric = 'gpu_utilization'")" \
	     "$(q $T/db "select count(*) from events where dup_of is null and level = 4")"
}
ino=
for nk in 5:0 9:0 14:3; do
	n=${nk%:*}
	history $n ${nk#*:}
	[ -z "$ino" ] && ino=$(ls -i $D/metrics_history.json | cut -d' ' -f1)
	ingest $T/db $D || fail "ingest history of $n entries"
	expect_eq "history of $n" "$(expect $n)" "$(got)"
done
expect_eq "same inode" "$ino" "$(ls -i $D/metrics_history.json | cut -d' ' -f1)"
expect_eq "rejects" 0 "$(q $T/db 'select count(*) from rejects')"
# the third file was read whole: entries 3..13 and the alerts of 4, 8, 12;
# entries 3..8 and the alerts of 4 and 8 were stored before: mirrors
expect_eq "third read" "14|6|2" \
	"$(q $T/db "select count(*), sum(dup_of is not null and message like 'metrics of %'), sum(dup_of is not null and message not like 'metrics of %') from events where stream_id = 3")"
# each rewrite was a new stream: 3 streams for the history
expect_eq "streams" 3 "$(q $T/db "select count(distinct stream_id) from events")"
# a sample keeps its component: entry 13 is echo_mem's, cpu_usage 23.5
expect_eq "entry 13" "1718000780000000|23.5|{\"component_id\":\"echo_mem\"}" \
	"$(q $T/db "select ts_us, value, labels from v_samples where metric = 'cpu_usage' order by ts_us desc limit 1")"
# the alerts keep metric, value and threshold
expect_eq "alert 12" "WARN|echo_core|High CPU usage 12|cpu_usage|22.5|10.0" \
	"$(q $T/db "select level, component, message, json_extract(metadata, '\$.metric'), json_extract(metadata, '\$.value'), printf('%.1f', json_extract(metadata, '\$.threshold')) from v_events where ts_us = 1718000720250000")"

# alert files: the second overwrites the first within the same second
A=$T/alerts
mkdir -p $A
cat > $A/alert_1718003600.json <<'J'
{
  "timestamp": 1718003600.125,
  "severity": "critical",
  "component": "echo_gpu",
  "message": "GPU utilization low",
  "metric": "gpu_utilization",
  "value": 3.0,
  "threshold": 10.0
}
J
ingest $T/db2 $A || fail "ingest alert 1"
cat > $A/alert_1718003600.json <<'J'
{
  "timestamp": 1718003600.875,
  "severity": "info",
  "component": "echo_gpu",
  "message": "GPU utilization back to normal",
  "metric": "gpu_utilization",
  "value": 55.0,
  "threshold": 10.0
}
J
ingest $T/db2 $A || fail "ingest alert 2"
expect_eq "both alerts" "1718003600125000|CRITICAL|echo_gpu|GPU utilization low|3.0
1718003600875000|INFO|echo_gpu|GPU utilization back to normal|55.0" \
	"$(q $T/db2 "select ts_us, level, component, message, json_extract(metadata, '\$.value') from v_events order by ts_us")"
# a copy of the same alert under another name is the same stream: nothing new
cp $A/alert_1718003600.json $A/copy.json
ingest $T/db2 $A || fail "ingest alert copy"
expect_eq "copy" "2 2" "$(q $T/db2 'select count(*) from events') $(q $T/db2 'select count(*) from events where dup_of is null')"

# a document cut in the middle (the writer died): no record, the lines stay
# unclaimed; a new document opened inside it breaks it: its lines are rejects
C=$T/cut
mkdir -p $C
printf '{\n  "timestamp": 1718003700,\n  "severity": "warning",\n  "compo' > $C/alert_1718003700.json
ingest $T/db3 $C || fail "ingest cut"
expect_eq "cut: no event" 0 "$(q $T/db3 'select count(*) from events')"
printf '{\n  "timestamp": 1718003700,\n  "severity": "warning",\n  "component": "x",\n{\n  "a": 1\n}\n' > $C/alert_1718003701.json
ingest $T/db3 $C || fail "ingest broken"
expect_eq "broken: rejects" "5 6 7" "$(q $T/db3 "select line from rejects order by line" | tr '\n' ' ' | sed 's/ $//')"
# the reason is jsondoc's own (the Kineto parser's trial on the "{" line used
# to take the document's state: "not a line of any known format")
expect_eq "broken: reasons" "JSON document: a member name expected
JSON document broken earlier: a member name expected
JSON document broken earlier: a member name expected" \
	"$(q $T/db3 "select reason from rejects order by line")"
expect_eq "broken: no event" 0 "$(q $T/db3 'select count(*) from events')"

# a history cut inside its second entry at the end of the file: once the
# file has settled (a minute unchanged) a reject of its last line, said once
# over three runs, the entry's lines not claimed (7 of 10): an open record
# ending at the file's end, so that a writer that had only paused is read
# on from the entry (issue 28, D6); while fresh (its writer may be in the
# middle of the entry) no reject, the entry's lines held (7 of 10 claimed)
for d in settled fresh; do
	mkdir -p $T/$d
	printf '{\n  "metrics": [\n    {\n      "timestamp": 1718000000,\n      "component_id": "echo_core",\n      "cpu_usage": 10.5\n    },\n    {\n      "timestamp": 1718000060,\n      "component_id": "echo_core",\n' \
		> $T/$d/metrics_history.json
done
touch -d '2025-01-01T00:00:00Z' $T/settled/metrics_history.json
for i in 1 2 3; do
	ingest $T/db5 $T/settled || fail "ingest settled cut history $i"
	ingest $T/db6 $T/fresh || fail "ingest fresh cut history $i"
done
# line 10 starts at byte 157, the bytes of the first 9 lines (wc -c)
expect_eq "settled cut: one reject" "10|$(head -n 9 $T/settled/metrics_history.json | wc -c | tr -d ' ')|monitor history cut at the end of the file: the entry or the document is not closed" \
	"$(q $T/db5 'select line, offset, reason from rejects')"
expect_eq "settled cut: entry 1, the entry's lines open to the file's end" "1 7|$(wc -c < $T/settled/metrics_history.json | tr -d ' ')" \
	"$(q $T/db5 'select count(*) from events') $(q $T/db5 'select lines, open_end from streams')"
expect_eq "fresh cut: no reject, held" "0 1 7" \
	"$(q $T/db6 'select count(*) from rejects') $(q $T/db6 'select count(*) from events') $(q $T/db6 'select lines from streams')"

# a history written on one line (json.dump without indent), rewritten with two
# more entries: one record per entry, each entry stored once. By hand:
# cpu_usage 10.5 + 11.5 + 12.5 + 13.5 + 14.5 = 62.5 over 5 entries; events: 5
# entries and the alert, the second file's first 3 entries and alert mirrors.
O=$T/oneline
mkdir -p $O
for n in 3 5; do
	python3 - "$O/metrics_history.json" $n <<'PY'
import json, sys
n = int(sys.argv[2])
m = [{"timestamp": 1718000000 + 60 * i, "component_id": "echo_core", "cpu_usage": 10.5 + i,
      "status": "ok"} for i in range(n)]
a = [{"timestamp": 1718000030, "severity": "warning", "component": "echo_core",
      "message": "High CPU", "metric": "cpu_usage", "value": 93.1, "threshold": 90}]
json.dump({"metrics": m, "alerts": a}, open(sys.argv[1], "w"))
PY
	touch -d '2025-01-01T00:00:00Z' $O/metrics_history.json
	ingest $T/db7 $O || fail "ingest one-line history of $n"
done
expect_eq "one line: lines" 1 "$(awk 'END { print NR }' $O/metrics_history.json)"
expect_eq "one line: events, originals, samples, sum, rejects" "10 6 5 62.5 0" \
	"$(q $T/db7 'select count(*) from events') $(q $T/db7 'select count(*) from events where dup_of is null') $(q $T/db7 "select count(*) from v_samples where metric = 'cpu_usage'") $(q $T/db7 "select printf('%.1f', sum(value)) from v_samples where metric = 'cpu_usage'") $(q $T/db7 'select count(*) from rejects')"

# a JSON document of no known shape is skipped, not taken
printf '{\n  "name": "x",\n  "items": [\n    1,\n    2\n  ]\n}\n' > $T/other.json
out=$("$INGEST" --db $T/db4 $T/other.json 2>&1) || fail "ingest other: $out"
expect_eq "other skipped" "skipped" "$(q $T/db4 'select status from files')"
