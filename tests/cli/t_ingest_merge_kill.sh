# A run killed at each commit of its run's-end merge of staged samples
# (issue 28 D11): 240 scrape files of 2,200 series, 528,000 samples, more
# than one pass of the merge holds (two passes by series, the stage rows'
# removal, the mark's). After each kill the database holds every stored
# sample once (in a block or still staged) and reads as a whole; the next
# run finishes the merge: every sample of the files once, with its path,
# line and value (awk), nothing left staged, three blocks a series (the
# first file's run; the other 240 samples, of 240 files: 128 and 112).
. tests/cli/lib.sh

mkdir -p $T/p
k=0
while [ $k -lt 241 ]; do
	awk -v k=$k 'BEGIN { print "# TYPE DCGM_FI_DEV_GPU_TEMP gauge"
		for (g = 0; g < 2200; g++)
			printf("DCGM_FI_DEV_GPU_TEMP{gpu=\"%d\",Hostname=\"n%d\"} %d\n", g % 8, int(g / 8), (g + k) % 97) }' > $T/p/m.$k.prom
	touch -d "@$((1763000000 + k * 14))" $T/p/m.$k.prom
	k=$((k + 1))
done
mkdir -p $T/first && mv $T/p/m.0.prom $T/first/
ingest $T/base.db $T/first || fail "the first file"
mv $T/first/m.0.prom $T/p/
awk '/^DCGM/ { split(FILENAME, a, "/"); print a[length(a)] "|" FNR "|" $2 }' $T/p/*.prom | sort > $T/want
samples="select replace(replace(path, '$T/p/', ''), '$T/first/', '') || '|' || line || '|' || cast(value as int) from v_samples"
n=1
while :; do
	cp $T/base.db $T/d.db
	GPULOG_INGEST_TEST_KILL_MERGE=$n "$INGEST" -q --db $T/d.db $T/p 2>/dev/null
	rc=$?
	[ $rc -eq 0 ] && break
	[ $rc -eq 137 ] || fail "kill at merge commit $n: status $rc"
	expect_eq "kill at $n: integrity" ok "$(q $T/d.db 'pragma integrity_check')"
	q $T/d.db "$samples" | sort > $T/got
	cmp -s $T/want $T/got || fail "kill at merge commit $n: the samples stored differ: $(diff $T/want $T/got | head -3)"
	ingest $T/d.db $T/p || fail "the run after the kill at $n"
	q $T/d.db "$samples" | sort > $T/got
	cmp -s $T/want $T/got || fail "after the kill at $n: the samples differ: $(diff $T/want $T/got | head -3)"
	expect_eq "after the kill at $n: staged|marks|blocks" "0|0|6600" \
		"$(q $T/d.db 'select count(*) from sample_stage')|$(q $T/d.db 'select count(*) from sample_merge')|$(q $T/d.db 'select count(*) from sample_blocks')"
	n=$((n + 1))
	[ $n -le 20 ] || fail "more than 20 commits in the merge"
done
[ $n -ge 5 ] || fail "the merge committed $((n - 1)) times; two passes, the stage's removal and the mark's make 5 at least"
q $T/d.db "$samples" | sort > $T/got
cmp -s $T/want $T/got || fail "the run not killed: the samples differ"
echo "killed at each of the merge's $((n - 1)) commits"
exit 0
