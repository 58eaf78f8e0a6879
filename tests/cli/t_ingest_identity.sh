# Issue 11 D1: a file truncated in place and written again, keeping its
# inode and first line(s), is re-identified by content: the lines it still
# shares with what was stored are not stored again, the new ones are.
# Expected counts are the numbers of lines each scenario wrote.
. tests/cli/lib.sh

# genrmm FIRST COUNT: an RMM CSV (header, then COUNT allocate rows with
# distinct pointers), as rmm::mr::logging_resource_adaptor writes it.
genrmm() {
	awk -v first="$1" -v n="$2" 'BEGIN {
		print "Thread,Time,Action,Pointer,Size,Stream";
		for (i = first; i < first + n; i++)
			printf("23110,%02d:%02d:%02d.%06d,allocate,0x7f14%08x,%d,0x0\n", int(i / 3600) % 24,
			       int(i / 60) % 60, i % 60, i, i * 4096, 1024 + i);
	}'
}
# mem_exact DB N: exactly N RMM rows, no pointer twice.
mem_exact() {
	expect_eq "mem events" "$2" "$(q "$1" 'select count(*) from mem_events')"
	expect_eq "distinct pointers" "$2" "$(q "$1" 'select count(distinct ptr) from mem_events')"
}
ino() { stat -c %i "$1"; }

# 1. RMM re-creates its CSV on every run: same path, same inode (O_TRUNC),
# same header line. 1,000 rows stored, then the file holds 50 new ones.
d=$T/rmm; mkdir -p $d/logs; db=$d/db
genrmm 0 1000 > $d/logs/rmm.csv; touch -d '2 hours ago' $d/logs/rmm.csv
ingest $db $d/logs || fail "rmm: first run"
mem_exact $db 1000
i0=$(ino $d/logs/rmm.csv)
genrmm 1000 50 > $d/logs/rmm.csv; touch -d '1 hour ago' $d/logs/rmm.csv
expect_eq "rmm: same inode" "$i0" "$(ino $d/logs/rmm.csv)"
out=$("$INGEST" --db $db $d/logs 2>&1) || fail "rmm: second run: $out"
mem_exact $db 1050
echo "$out" | grep -q "50 lines stored" || fail "rmm: summary: $out"
expect_eq "rmm: file status" read "$(q $db "select status from files where path like '%/rmm.csv'")"
# and again, larger than the first time: 1,200 new rows
genrmm 1050 1200 > $d/logs/rmm.csv
ingest $db $d/logs || fail "rmm: third run"
mem_exact $db 2250
ingest $db $d/logs || fail "rmm: unchanged run"
mem_exact $db 2250

# 2. the same with a new inode (rm, then created again), the old file gone.
d=$T/rmmnew; mkdir -p $d/logs; db=$d/db
genrmm 0 1000 > $d/logs/rmm.csv; touch -d '2 hours ago' $d/logs/rmm.csv
ingest $db $d/logs || fail "rmm new inode: first run"
rm $d/logs/rmm.csv
genrmm 1000 50 > $d/logs/rmm.csv.new; mv $d/logs/rmm.csv.new $d/logs/rmm.csv
touch -d '1 hour ago' $d/logs/rmm.csv
ingest $db $d/logs || fail "rmm new inode: second run"
mem_exact $db 1050

# 3. a JSON log of 6,000 lines cut in place to its first 500 (head -n 500)
# plus 100 new lines: the 100 are stored, the 500 not again; once it grows
# past its old size, still every message exactly once.
d=$T/head; mkdir -p $d/logs; db=$d/db
genlines h 0 6000 > $d/logs/app.log; touch -d '2 hours ago' $d/logs/app.log
ingest $db $d/logs || fail "head: first run"
check_exact $db 6000
i0=$(ino $d/logs/app.log)
head -n 500 $d/logs/app.log > $d/cut
{ cat $d/cut; genlines h 6000 100; } > $d/logs/app.log
touch -d '1 hour ago' $d/logs/app.log
expect_eq "head: same inode" "$i0" "$(ino $d/logs/app.log)"
ingest $db $d/logs || fail "head: second run"
check_exact $db 6100
expect_eq "head: new rows' lines" "501 600" \
	"$(q $db "select min(line), max(line) from events where message >= 'h 6000' and message like 'h 6___'" | tr '|' ' ')"
genlines h 6100 7000 >> $d/logs/app.log
ingest $db $d/logs || fail "head: third run"
check_exact $db 13100
ingest $db $d/logs || fail "head: unchanged run"
check_exact $db 13100

# 4. cut in place to its first 500 lines and nothing new: a copy of what is
# stored (nothing stored); then 100 lines are appended to it.
d=$T/cut; mkdir -p $d/logs; db=$d/db
genlines c 0 6000 > $d/logs/app.log; touch -d '2 hours ago' $d/logs/app.log
ingest $db $d/logs || fail "cut: first run"
head -n 500 $d/logs/app.log > $d/cut; cat $d/cut > $d/logs/app.log
ingest $db $d/logs || fail "cut: second run"
check_exact $db 6000
expect_eq "cut: status" copy "$(q $db "select status from files where path like '%/app.log'")"
genlines c 6000 100 >> $d/logs/app.log
ingest $db $d/logs || fail "cut: third run"
check_exact $db 6100

# 5. the departure is found to the line when it lies between checkpoints
# a MiB apart: 20,000 lines (~3.8 MB), rewritten in place with the first
# 7,777 and 10 new lines.
d=$T/far; mkdir -p $d/logs; db=$d/db
genlines f 0 20000 > $d/logs/app.log; touch -d '2 hours ago' $d/logs/app.log
ingest $db $d/logs || fail "far: first run"
head -n 7777 $d/logs/app.log > $d/cut
{ cat $d/cut; genlines f 20000 10; } > $d/logs/app.log
ingest $db $d/logs || fail "far: second run"
check_exact $db 20010
exit 0
