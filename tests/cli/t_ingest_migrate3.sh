# A database of schema version 2 (fixtures/schema-v2.sql, as version 2
# created it) is migrated to 3: rows kept, the paths table filled from the
# files their rows name, record hashes computed like at ingest, duplicates
# among the old rows marked, and the result shaped like a fresh database.
. tests/cli/lib.sh

mkdir -p $T/logs $T/fresh
r1='{"timestamp": "2025-11-16T10:00:00.000001Z", "level": "ERROR", "component": "gpu", "message": "CUDA out of memory", "gpu_metrics": {"kernel_name": "k1", "execution_time_us": 12.5, "error_count": 3}}'
# The row a version-2 gpulog stored for r1 (level 5 = ERROR; names 1 gpu, 2 k1).
ev="INSERT INTO events (ts_us, level, component_id, kernel_id, dur_us, error_count, message, stream_id, line, file_id)"
db=$T/v2.db
{ cat fixtures/schema-v2.sql
  echo "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
  echo "INSERT INTO runs (id, started_us, finished_us, version) VALUES (1, 0, 1, '0.1.0');"
  echo "INSERT INTO names (id, name) VALUES (1, 'gpu'), (2, 'k1');"
  echo "INSERT INTO streams (id, format, first_path, bytes, lines, hash, head_bytes, head_hash) VALUES (1, 'json', '/old/gpu.log', 0, 0, 0, 0, 0), (2, 'json', '/old/error.log', 0, 0, 0, 0, 0);"
  echo "INSERT INTO files (id, path, status) VALUES (1, '/old/gpu.log', 'read'), (2, '/old/error.log', 'read'), (3, NULL, 'read');"
  # the error in gpu.log (stream 1) and in error.log (stream 2); the same
  # text twice in stream 1 at another time; a row of a file gone (no path)
  echo "$ev VALUES (1763287200000001, 5, 1, 2, 12.5, 3, 'CUDA out of memory', 1, 1, 1);"
  echo "$ev VALUES (1763287200000001, 5, 1, 2, 12.5, 3, 'CUDA out of memory', 2, 1, 2);"
  echo "$ev VALUES (1763287201000000, 5, 1, 2, 12.5, 3, 'CUDA out of memory', 1, 2, 1);"
  echo "$ev VALUES (1763287201000000, 5, 1, 2, 12.5, 3, 'CUDA out of memory', 1, 3, 1);"
  echo "$ev VALUES (1763287202000000, 3, 1, NULL, NULL, NULL, 'gone', 1, 4, 3);"
  echo "INSERT INTO mem_events (ts_us, action, stream_id, line, file_id) VALUES (1, 0, 1, 9, 2);"
  echo "INSERT INTO rejects (run_id, file_id, line, reason, length) VALUES (1, 1, 7, 'old reject', 10);"
} | sqlite3 $db || fail "cannot build the v2 database"

echo '{"timestamp": "2025-11-16T11:00:00Z", "level": "INFO", "message": "new"}' > $T/logs/new.log
touch -d '1 hour ago' $T/logs/new.log
"$INGEST" -q --db $db $T/logs || fail "ingest into the v2 database"
expect_eq "user_version" 12 "$(q $db 'pragma user_version')"
expect_eq "rows kept" "6|1|1" "$(q $db 'select (select count(*) from events), (select count(*) from mem_events), (select count(*) from rejects)')"
# paths: the two files with a path, then the new file
expect_eq "paths" "/old/gpu.log
/old/error.log
$T/logs/new.log" "$(q $db 'select path from paths order by id')"
expect_eq "old event paths" "/old/gpu.log|1
/old/error.log|1
/old/gpu.log|2
/old/gpu.log|3
|4" "$(q $db 'select path, line from v_events where id <= 5 order by id')"
expect_eq "mem path" "/old/error.log" "$(q $db 'select path from v_mem_events')"
expect_eq "reject path" "/old/gpu.log" "$(q $db "select path from v_rejects where reason = 'old reject'")"
# Duplicates: row 2 (error.log) of row 1 (gpu.log); rows 3 and 4 are in one
# stream: originals.
expect_eq "dup_of" "1|
2|1
3|
4|
5|" "$(q $db 'select id, dup_of from events where id <= 5 order by id')"

# The migration's hash is the ingest's: r1 ingested fresh hashes alike.
echo "$r1" > $T/fresh/gpu.log
touch -d '1 hour ago' $T/fresh/gpu.log
"$INGEST" -q --db $T/fresh.db $T/fresh || fail "fresh ingest"
expect_eq "rec_hash as at ingest" "$(q $T/fresh.db 'select rec_hash from events')" \
	"$(q $db 'select rec_hash from events where id = 1')"

# Same tables, columns, indexes and views as a fresh database.
db_shape $db > $T/old.shape
db_shape $T/fresh.db > $T/fresh.shape
diff $T/fresh.shape $T/old.shape || fail "migrated schema differs from a fresh one"
exit 0
