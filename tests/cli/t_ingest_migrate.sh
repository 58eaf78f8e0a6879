# A database written by an older gpulog (schema version 1, kept in
# fixtures/schema-v1.sql as that version created it) is migrated: its rows
# are kept, and it ends up like a database created fresh.
. tests/cli/lib.sh

db=$T/old.db
{ cat fixtures/schema-v1.sql
  echo "PRAGMA application_id = 1735420007; PRAGMA user_version = 1;"
  echo "INSERT INTO runs (id, started_us, finished_us, version) VALUES (1, 0, 1, '0.0.9');"
  echo "INSERT INTO rejects (run_id, line, reason, length) VALUES (1, 3, 'old reject', 10);"
  echo "INSERT INTO events (ts_us, level, message, stream_id, line) VALUES (1700000000000000, 3, 'old event', 1, 1);"
} | sqlite3 $db || fail "cannot build the v1 database"

mkdir -p $T/logs
{ genlines m 0 3; echo '{"timestamp": "2025-11-16T00:00:00Z", "level": 7}'; } > $T/logs/gpu.log
touch -d '1 hour ago' $T/logs/gpu.log
"$INGEST" -q --db $db $T/logs || fail "ingest into the v1 database"
expect_eq "user_version" 12 "$(q $db 'pragma user_version')"
expect_eq "old rows kept" "old event|old reject" \
	"$(q $db "select (select message from events where line = 1 and stream_id = 1 and message = 'old event'), (select reason from rejects where reason = 'old reject')")"
expect_eq "new events" 4 "$(q $db 'select count(*) from events')"
# the new reject carries the time of the record before it (m 2: 00:00:02.000002)
expect_eq "reject time" "2025-11-16T00:00:02.000Z" \
	"$(q $db "select time from v_rejects where reason <> 'old reject'")"

# Same tables, columns, indexes and views as a fresh database.
"$INGEST" -q --db $T/fresh.db $T/logs || fail "fresh ingest"
db_shape $db > $T/old.shape
db_shape $T/fresh.db > $T/fresh.shape
diff $T/fresh.shape $T/old.shape || fail "migrated schema differs from a fresh one"

# A database of a newer gpulog is refused and left as it is.
cp $T/fresh.db $T/newer.db
sqlite3 $T/newer.db 'pragma user_version = 13'
cp $T/newer.db $T/newer.orig
out=$("$INGEST" --db $T/newer.db $T/logs 2>&1); expect_eq "newer db status" 2 $?
echo "$out" | grep -q "newer gpulog" || fail "newer db message: $out"
cmp -s $T/newer.db $T/newer.orig || fail "newer database modified"
exit 0
