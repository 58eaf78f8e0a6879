# The bundled sample tree: every file ends up as the generator says
# (tests/cli/expected/sample-logs.counts), and a second run adds nothing.
. tests/cli/lib.sh

cp -r fixtures/sample-logs $T/logs
touch -d '2025-11-16T23:00:00Z' $T/logs/rmm/*
out=$("$INGEST" --db $T/db $T/logs 2>&1) || fail "ingest failed: $out"
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

# Time-of-day formats take the date from the file: the RMM CSV starts on
# 2025-11-16 at 09:12 (fixtures/README.md).
expect_eq "rmm csv first time" "2025-11-16T09:12" \
	"$(q $T/db "select substr(min(time), 1, 16) from v_mem_events")"
# Component from the file name when the line has none; the env_logger
# module path when it has one.
expect_eq "legacy component" 0 \
	"$(q $T/db "select count(*) from v_events where path like '%performance_monitor.log' and component is null")"

out=$("$INGEST" --db $T/db $T/logs 2>&1) || fail "second run failed: $out"
echo "$out" | grep -q "0 lines stored" || fail "second run stored lines: $out"
exit 0
