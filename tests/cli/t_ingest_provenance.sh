# Provenance (issue 11): events, memory events and rejects keep the path
# and line where they were read, after the file is renamed, compressed,
# deleted, and its name (and files row) taken by another file.
. tests/cli/lib.sh

d=$T/logs; mkdir -p $d; db=$T/db
# gpu.log: 3 records and a malformed line (line 4)
{ genlines a 0 3; echo '{"timestamp": "2025-11-16T00:00:09Z", "level": 7}'; } > $d/gpu.log
touch -d '1 hour ago' $d/gpu.log
ingest $db $d || fail "run 1"

# rotation: gpu.log -> gpu.log.1 (the files row follows the file), a new
# gpu.log with other lines
mv $d/gpu.log $d/gpu.log.1
genlines b 0 2 > $d/gpu.log
touch -d '1 hour ago' $d/gpu.log
ingest $db $d || fail "run 2"
# then gpu.log.1 compressed and the plain one deleted, then deleted too
gzip $d/gpu.log.1
ingest $db $d || fail "run 3"
rm $d/gpu.log.1.gz
# and a new gpu.log.1 with other content takes the rotated name
genlines c 0 1 > $d/gpu.log.1
touch -d '1 hour ago' $d/gpu.log.1
ingest $db $d || fail "run 4"

expect_eq "where each event was read" "a 0|gpu.log|1
a 1|gpu.log|2
a 2|gpu.log|3
b 0|gpu.log|1
b 1|gpu.log|2
c 0|gpu.log.1|1" "$(q $db 'select message, path, line from v_events order by id' | sed "s|$d/||")"
expect_eq "where the reject was read" "gpu.log|4" \
	"$(q $db 'select path, line from v_rejects' | sed "s|$d/||")"
# the files table names the file as it is now (or no longer): for the
# first stream's row that is not where its lines were read
expect_eq "files row of the first lines moved on" 1 \
	"$(q $db "select count(*) from events e join files f on f.id = e.file_id
		  where e.message = 'a 0' and (f.path is null or f.path <> '$d/gpu.log')")"
# paths are never rewritten: one row per path ever read
expect_eq "paths" "gpu.log
gpu.log.1" "$(q $db 'select path from paths order by id' | sed "s|$d/||")"

# RMM memory events keep their path too, after a rename.
mkdir $T/rmm
printf 'Thread,Time,Action,Pointer,Size,Stream\n1,08:00:00.000001,allocate,0x7f0000000000,256,0x0\n' > $T/rmm/rmm.csv
touch -d '1 hour ago' $T/rmm/rmm.csv
ingest $T/db2 $T/rmm || fail "rmm run 1"
mv $T/rmm/rmm.csv $T/rmm/rmm.1.csv
ingest $T/db2 $T/rmm || fail "rmm run 2"
expect_eq "rmm path" "rmm.csv|2" "$(q $T/db2 'select path, line from v_mem_events' | sed "s|$T/rmm/||")"
expect_eq "rmm files row renamed" "rmm.1.csv" "$(q $T/db2 'select path from files' | sed "s|$T/rmm/||")"
exit 0
