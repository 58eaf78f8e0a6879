# Rotation scenarios: each run stores exactly the lines not yet stored.
# Expected counts are the numbers of lines the scenario wrote.
. tests/cli/lib.sh

# 1. append: 100 lines, then 20 more.
d=$T/append; mkdir -p $d/logs; db=$d/db
genlines a 0 100 > $d/logs/gpu.log
ingest $db $d/logs || fail "append: first run"
check_exact $db 100
genlines a 100 20 >> $d/logs/gpu.log
ingest $db $d/logs || fail "append: second run"
check_exact $db 120
ingest $db $d/logs || fail "append: third run"
check_exact $db 120

# 2. rename (logrotate without copytruncate), lines appended just before.
d=$T/rename; mkdir -p $d/logs; db=$d/db
genlines r 0 100 > $d/logs/gpu.log
ingest $db $d/logs
genlines r 100 5 >> $d/logs/gpu.log
mv $d/logs/gpu.log $d/logs/gpu.log.1
genlines r 105 7 > $d/logs/gpu.log
ingest $db $d/logs || fail "rename: second run"
check_exact $db 112

# 3. then gzip the rotated file and move it to archived/ (name changes twice).
mkdir -p $d/logs/archived
gzip -c $d/logs/gpu.log.1 > $d/logs/archived/gpu_20251116_000000.log.gz
rm $d/logs/gpu.log.1
ingest $db $d/logs || fail "gzip+move: run"
check_exact $db 112
expect_eq "gz file recognised" read \
	"$(q $db "select status from files where path like '%gpu_20251116_000000.log.gz'")"

# 4. a logrotate chain over several cycles: .1 -> .2.gz -> .3.gz ...
d=$T/chain; mkdir -p $d/logs; db=$d/db; n=0
for cycle in 1 2 3 4; do
	genlines c $n 50 >> $d/logs/gpu.log; n=$((n + 50))
	ingest $db $d/logs || fail "chain: run $cycle"
	check_exact $db $n
	genlines c $n 3 >> $d/logs/gpu.log; n=$((n + 3))	# written after the run
	for k in 4 3 2; do
		[ -e $d/logs/gpu.log.$k.gz ] && mv $d/logs/gpu.log.$k.gz $d/logs/gpu.log.$((k + 1)).gz
	done
	[ -e $d/logs/gpu.log.1 ] && gzip -c $d/logs/gpu.log.1 > $d/logs/gpu.log.2.gz && rm $d/logs/gpu.log.1
	mv $d/logs/gpu.log $d/logs/gpu.log.1
done
ingest $db $d/logs || fail "chain: last run"
check_exact $db $n

# 5. copytruncate: copied, truncated in place, written again.
d=$T/copytrunc; mkdir -p $d/logs; db=$d/db
genlines t 0 100 > $d/logs/gpu.log
ingest $db $d/logs
genlines t 100 5 >> $d/logs/gpu.log
cp $d/logs/gpu.log $d/logs/gpu.log.1
: > $d/logs/gpu.log
genlines t 105 8 >> $d/logs/gpu.log
ingest $db $d/logs || fail "copytruncate: second run"
check_exact $db 113
# truncated and rewritten to a size larger than before
genlines t 113 1 >> $d/logs/gpu.log
cp $d/logs/gpu.log $d/logs/gpu.log.2
: > $d/logs/gpu.log
genlines t 114 300 > $d/logs/gpu.log
ingest $db $d/logs || fail "copytruncate: third run"
check_exact $db 414

# 6. two different files whose first lines are the same (more than the
# 4 KiB head, and less): both are stored whole, the copy of a file is not.
d=$T/same; mkdir -p $d/logs; db=$d/db
genlines s 0 50 > $d/logs/a.log
cp $d/logs/a.log $d/logs/b.log
genlines x 0 30 >> $d/logs/a.log
genlines y 0 20 >> $d/logs/b.log
genlines s 0 5 > $d/logs/c.log
genlines z 0 4 >> $d/logs/c.log
ingest $db $d/logs || fail "same heads: run"
# a: 50 + 30, b: 50 + 20, c: 5 + 4 -- the s lines are in all three files
expect_eq "events" 159 "$(q $db 'select count(*) from events')"
expect_eq "a.log" 80 "$(q $db "select count(*) from v_events where path like '%/a.log'")"
expect_eq "b.log" 70 "$(q $db "select count(*) from v_events where path like '%/b.log'")"
expect_eq "c.log" 9 "$(q $db "select count(*) from v_events where path like '%/c.log'")"
# a later exact copy of a.log adds nothing
cp $d/logs/a.log $d/logs/a.log.1
ingest $db $d/logs || fail "same heads: copy run"
expect_eq "events after copy" 159 "$(q $db 'select count(*) from events')"

# 7. an unchanged tree: nothing stored, and the summary says unchanged.
out=$("$INGEST" --db $db $d/logs 2>&1) || fail "unchanged run"
echo "$out" | grep -q "4 unchanged" || fail "unchanged run summary: $out"
echo "$out" | grep -q "0 lines stored" || fail "unchanged run stored lines: $out"

# 8. a final line without newline: held back while fresh, stored once settled.
d=$T/partial; mkdir -p $d/logs; db=$d/db
genlines p 0 10 > $d/logs/gpu.log
printf '{"timestamp": "2025-11-16T00:00:00Z", "message": "p unfinished"' >> $d/logs/gpu.log
ingest $db $d/logs
check_exact $db 10
printf ', "level": "INFO"}\n' >> $d/logs/gpu.log
ingest $db $d/logs
check_exact $db 11
printf '{"timestamp": "2025-11-16T00:00:01Z", "message": "p settled"}' >> $d/logs/gpu.log
touch -d '2 hours ago' $d/logs/gpu.log
ingest $db $d/logs
check_exact $db 12
# ... and when its writer ends the line after all, the record is still once.
printf '\n' >> $d/logs/gpu.log
ingest $db $d/logs
check_exact $db 12
expect_eq "rejects" 0 "$(q $db "select count(*) from rejects")"

# 8b. a writer pausing over a minute in the middle of a line (issue 11 D7):
# the cut line is stored (its writer may have died), and replaced by the
# whole record when the writer resumes; nothing is rejected.
d=$T/pause; mkdir -p $d/logs; db=$d/db
genlines w 0 10 > $d/logs/gpu.log
printf '2025-11-16 00:00:00,000 - svc - ERROR - worker crashed' > $d/logs/py.log
printf '{"timestamp": "2025-11-16T00:00:00Z", "level": "INFO", "message": "w paused", "gpu_metrics": {"kernel_name": "kp", ' >> $d/logs/gpu.log
touch -d '2 hours ago' $d/logs/gpu.log $d/logs/py.log
ingest $db $d/logs
expect_eq "cut line stored" "11|1" "$(q $db "select count(*), (select count(*) from rejects) from events")"
expect_eq "cut py line" "worker crashed" "$(q $db "select message from events where message like 'worker%'")"
# unchanged, touched, then read again: the cut lines stay stored once
ingest $db $d/logs
touch $d/logs/gpu.log $d/logs/py.log
sleep 1
touch -d '2 hours ago' $d/logs/gpu.log $d/logs/py.log
ingest $db $d/logs
expect_eq "cut line once" "11|1" "$(q $db "select count(*), (select count(*) from rejects) from events")"
# the writers resume: the JSON line completes, the traceback goes on
printf '"execution_time_us": 7.5}}\n' >> $d/logs/gpu.log
printf ' in step 3\nTraceback (most recent call last):\n  File "w.py", line 1\n' >> $d/logs/py.log
genlines w 10 2 >> $d/logs/gpu.log
ingest $db $d/logs
expect_eq "resumed" "14|0|1|1" "$(q $db "select count(*), (select count(*) from rejects),
	(select count(*) from events where message = 'w paused' and dur_us = 7.5),
	(select count(*) from events where message like 'worker crashed in step 3%Traceback%line 1') from events")"
expect_eq "json lines" "11|12|13" "$(q $db "select group_concat(line, '|') from (select line from events
	where message in ('w paused', 'w 10', 'w 11') order by line)")"
expect_eq "py line" 1 "$(q $db "select line from events where message like 'worker%'")"
# the stream's line hashes and end agree with the file: a gzipped copy is a copy
gzip -c $d/logs/gpu.log > $d/logs/gpu.log.1.gz
ingest $db $d/logs
expect_eq "after gzip copy" 14 "$(q $db "select count(*) from events")"
expect_eq "open records" 0 "$(q $db "select count(*) from streams where open_end != 0")"

# 9. a symbolic link to a log in the same tree: one file, read once, and
# later runs call it unchanged (not a rename back and forth).
d=$T/link; mkdir -p $d/logs; db=$d/db
genlines l 0 10 > $d/logs/gpu.log
touch -d '1 hour ago' $d/logs/gpu.log
ln -s gpu.log $d/logs/current.log
ingest $db $d/logs
check_exact $db 10
for run in 1 2; do
	out=$("$INGEST" --db $db $d/logs 2>&1)
	echo "$out" | grep -q "2 unchanged, 0 rotated" || fail "link run $run: $out"
done
check_exact $db 10

# 10. many logs that open with the same banner line (one per day): a
# gzipped copy of any of them is still recognised, however many share it.
d=$T/banner; mkdir -p $d/logs; db=$d/db
for i in $(seq 1 70); do
	{ echo '{"level": "INFO", "message": "service starting"}'; genlines "b$i" 0 4; } > $d/logs/svc.log.$i
done
touch -d '1 hour ago' $d/logs/svc.log.*
ingest $db $d/logs
expect_eq "banner events" 350 "$(q $db 'select count(*) from events')"
for i in 1 10 11 70; do gzip -c $d/logs/svc.log.$i > $d/logs/svc.log.$i.gz; rm $d/logs/svc.log.$i; done
ingest $db $d/logs
expect_eq "banner events after gzip" 350 "$(q $db 'select count(*) from events')"
exit 0
