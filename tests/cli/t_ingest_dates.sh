# Times out of range and dates not in the calendar are rejects with their
# reason in every format that reads dates (issue 28, Low items): plain text
# (ISO stamps, syslog), vLLM server logs, Kineto traces (ts 1e308 or 1e18,
# a negative dur), gpufl (times in ns beyond 64 bits). Each expected count is
# the number of such lines the test writes; nothing of them is stored, no
# row has a NULL time.
. tests/cli/lib.sh

command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
old() { touch -d '10 minutes ago' "$@"; }
rej() { q "$1" "select count(*) from rejects where reason = '$2'"; }

# --- plain text: 7 stamps of the ISO or syslog shape out of any calendar ---
mkdir -p $T/t
cat > $T/t/app.log <<'X'
2025-11-13 10:00:00 INFO ok one
2026-02-31 10:00:00 INFO feb 31
10000-01-01 10:00:00 INFO year 10000
1900-01-01 10:00:00 INFO year 1900
0000-01-01 10:00:00 INFO year 0
2025-13-01 10:00:00 INFO month 13
2025-11-13 10:00:01 INFO ok two
2025-11-13 24:00:00 INFO hour 24
Feb 30 10:00:00 host kernel: feb 30
2024-02-29 10:00:00 INFO ok leap day
X
old $T/t/app.log
ingest $T/t.db $T/t || fail "text: ingest"
TXT='a date or time not in the calendar, or before 1970 or after 9999'
expect_eq "text: 7 rejects with the reason" 7 "$(rej $T/t.db "$TXT")"
expect_eq "text: their lines" "2 3 4 5 6 8 9" "$(q $T/t.db "select group_concat(line, ' ') from (select line from rejects order by line)")"
# 2025-11-13T10:00:00Z = 1763028000 s; 2024-02-29T10:00:00Z = 1709200800 s
expect_eq "text: the 3 good lines at their times" "1709200800000000 1763028000000000 1763028001000000" \
	"$(q $T/t.db "select group_concat(ts_us, ' ') from (select ts_us from events order by ts_us)")"

# --- vLLM: the sample server log, then 4 lines of impossible dates and one good
mkdir -p $T/v
V=fixtures/sample-logs/inference/vllm_server.log
{ cat $V
  echo 'INFO 02-31 10:00:00 [api_server.py:1] feb 31'
  echo 'INFO 13-01 10:00:00 [api_server.py:1] month 13'
  echo 'INFO 11-16 25:00:00 [api_server.py:1] hour 25'
  echo 'INFO 11-16 16:61:00 [api_server.py:1] minute 61'
  echo 'INFO 11-16 16:00:00 [api_server.py:1] after them'
} > $T/v/vllm_server.log
touch -d '2025-11-20 00:00:00 UTC' $T/v/vllm_server.log
ingest $T/v.db $T/v || fail "vllm: ingest"
expect_eq "vllm: read as vllm" vllm "$(q $T/v.db 'select format from streams')"
expect_eq "vllm: 4 rejects with the reason" 4 "$(rej $T/v.db 'vLLM line: a month, day or time out of range')"
# the good line after them in 2025 (the file's year), not 2026 (Feb 31 read
# as Mar 3 put the lines after it a year late): 2025-11-16T16:00:00Z
expect_eq "vllm: the line after them" 1763308800000000 \
	"$(q $T/v.db "select ts_us from events where message = 'after them'")"
expect_eq "vllm: no event of the bad lines" 0 \
	"$(q $T/v.db "select count(*) from events where message like '%feb 31%' or message like '%month 13%' or message like '%hour 25%' or message like '%minute 61%'")"

# --- Kineto: 3 kernels, the first at ts 1e308, the second with dur -2.5 -----
mkdir -p $T/k
python3 tests/cli/gen_kineto.py 3 n | python3 -c '
import sys
s = sys.stdin.read()
s = s.replace("\"ts\": 1712195495000005.250", "\"ts\": 1e308", 1)
s = s.replace("\"name\": \"n1\", \"pid\": 0, \"tid\": 7,\n    \"ts\": 1712195495000015.250, \"dur\": 2.5",
              "\"name\": \"n1\", \"pid\": 0, \"tid\": 7,\n    \"ts\": 1712195495000015.250, \"dur\": -2.5", 1)
sys.stdout.write(s)' > $T/k/t.pt.trace.json
grep -q '"ts": 1e308' $T/k/t.pt.trace.json && grep -q '"dur": -2.5' $T/k/t.pt.trace.json || fail "kineto: the test's trace"
old $T/k/t.pt.trace.json
ingest $T/k.db $T/k || fail "kineto: ingest"
expect_eq "kineto: 1 kernel of 3 stored" "n2" \
	"$(q $T/k.db "select group_concat(n.name) from events e join names n on n.id = e.kernel_id where e.source = 'kineto'")"
expect_eq "kineto: the reasons" "GPU event: negative dur
GPU event: ts out of range" "$(q $T/k.db 'select reason from rejects order by reason')"
expect_eq "kineto: no row without a time" 0 "$(q $T/k.db 'select count(*) from events where ts_us is null')"

# a ts of 1e18 us (a ns count written as us: year 33658) is a reject too
mkdir -p $T/k2
python3 tests/cli/gen_kineto.py 3 m | sed '0,/"ts": 1712195495000005.250/s//"ts": 1e18/' > $T/k2/t.pt.trace.json
old $T/k2/t.pt.trace.json
ingest $T/k2.db $T/k2 || fail "kineto 1e18: ingest"
expect_eq "kineto 1e18: 2 kernels of 3, 1 reject" "2|1" \
	"$(q $T/k2.db "select count(*) from events where source = 'kineto' and kernel_id is not null")|$(q $T/k2.db "select count(*) from rejects where reason like 'time out of range%'")"

# --- gpufl: a kernel and a scope at 1e308 and 1e27 ns, one good kernel -------
mkdir -p $T/g
{ for t in 1e308 1e27; do
	printf '{"type":"kernel_event","pid":7,"app":"b","name":"k","device_id":"0","start_ns":%s,"end_ns":%s,"stream_id":1,"corr_id":1}\n' $t $t
	printf '{"type":"scope_begin","pid":7,"app":"b","name":"s","tag":"","ts_ns":%s}\n' $t
  done
  printf '{"type":"kernel_event","pid":7,"app":"b","name":"good","device_id":"0","start_ns":1763000000000000000,"end_ns":1763000000000050000,"stream_id":1,"corr_id":2}\n'
} > $T/g/gpufl_app.kernel.log
old $T/g/gpufl_app.kernel.log
ingest $T/g.db $T/g || fail "gpufl: ingest"
expect_eq "gpufl: 4 rejects with the reason" 4 "$(rej $T/g.db 'gpufl: a time in ns out of range (beyond 64 bits)')"
expect_eq "gpufl: the good kernel at its time" "good|1763000000000000" \
	"$(q $T/g.db "select n.name || '|' || e.ts_us from events e join names n on n.id = e.kernel_id")"
exit 0
