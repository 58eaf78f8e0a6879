# Options of gpulog-ingest, and a file whose format changes midway.
. tests/cli/lib.sh

mkdir -p $T/logs
genlines h 0 4 > $T/logs/gpu.log
touch -d '1 hour ago' $T/logs/gpu.log

# --host labels every event of the run.
"$INGEST" -q --host node-7 --db $T/h.db $T/logs || fail "--host run"
expect_eq "host label" "node-7|4" "$(q $T/h.db 'select host, count(*) from v_events group by host')"

# $GPULOG_DB is the default database; --db wins over it.
(cd $T && GPULOG_DB=$T/env.db "$INGEST" -q logs) || fail "GPULOG_DB run"
expect_eq "GPULOG_DB used" 4 "$(q $T/env.db 'select count(*) from events')"
[ ! -e $T/gpulog.db ] || fail "./gpulog.db created although GPULOG_DB was set"
(cd $T && "$INGEST" -q logs) || fail "default db run"
expect_eq "./gpulog.db by default" 4 "$(q $T/gpulog.db 'select count(*) from events')"

# --format forces a format: a JSON file read as pylog has no records.
"$INGEST" -q --format pylog --db $T/f.db $T/logs || fail "--format run"
expect_eq "forced format rejects" "0|4" \
	"$(q $T/f.db 'select (select count(*) from events), (select count(*) from rejects)')"

# --list-formats, --help, --version
"$INGEST" --list-formats > $T/formats || fail "--list-formats"
expect_eq "formats" "bitnet dcgmi dmon envlog gpufl json jsondoc kineto lightning nsys nvsmi nvsmiq nvsmiqx pmon prom pylog rmmcsv rmmlog text trainstate vllm" "$(cut -f1 $T/formats | tr '\n' ' ' | sed 's/ $//')"
"$INGEST" --help | grep -q "^Usage: gpulog-ingest" || fail "--help"
"$INGEST" --version | grep -q "^gpulog-ingest [0-9]" || fail "--version"

# A file whose service was upgraded midway: text lines, then JSON lines,
# then text again, with a traceback. Nothing is dropped.
mkdir -p $T/mixed
{
	echo '2025-11-16 10:00:00,000 - svc - INFO - starting'
	echo '2025-11-16 10:00:01,000 - svc - ERROR - failed'
	echo 'Traceback (most recent call last):'
	echo '  File "svc.py", line 3, in <module>'
	genlines j 0 3
	echo '2025-11-16 11:00:00,000 - svc - WARNING - back to text'
} > $T/mixed/svc.log
touch -d '1 hour ago' $T/mixed/svc.log
"$INGEST" -q --db $T/m.db $T/mixed || fail "mixed run"
expect_eq "events" 6 "$(q $T/m.db 'select count(*) from events')"
expect_eq "rejects" 0 "$(q $T/m.db 'select count(*) from rejects')"
expect_eq "traceback kept with its record" 1 \
	"$(q $T/m.db "select count(*) from events where message like 'failed%line 3, in <module>'")"
expect_eq "json lines" 3 "$(q $T/m.db "select count(*) from events where message like 'j %'")"
exit 0
