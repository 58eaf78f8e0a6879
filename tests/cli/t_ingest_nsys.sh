# Nsight Systems cuda_gpu_trace CSV through the whole ingest: rows become
# kernel timings of source nsys, placed so the last row ends at the file's
# modification time; a grown file keeps the first run's placement; the
# real file and the `nsys profile --stats=true` transcript (skipped, with
# the reason) when ../shared/realdata is there. Expected times by hand.
. tests/cli/lib.sh

H='Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name'
mkdir -p $T/logs
{
	echo "$H"
	echo '5000000,2000,10,,,,,,,,,,0.004,2000.000,Pageable,Device,NVIDIA A100 (1),1,,7,[CUDA memcpy Host-to-Device]'
	echo '7000000,3000,11,4,1,1,128,1,1,32,0.000,0.001,,,,,NVIDIA A100 (1),1,,7,"void k<1, 2>(int)"'
	echo '9000000,1000,12,4,1,1,128,1,1,32,0.000,0.001,,,,,NVIDIA A100 (1),1,,13,k2'
} > $T/logs/run_cuda_gpu_trace.csv
# 2025-03-01 12:00:00 UTC = 1740830400 s; the last row ends at 9,001,000 ns,
# so time 0 is 1740830400000000 - 9001 µs = 1740830399990999.
touch -d '2025-03-01 12:00:00 UTC' $T/logs/run_cuda_gpu_trace.csv
ingest $T/a.db $T/logs || fail "ingest"
expect_eq "rows" "3|nsys" "$(q $T/a.db "select count(*), group_concat(distinct source) from v_events")"
expect_eq "times" "1740830399995999|1740830399997999|1740830399999999" \
	"$(q $T/a.db "select group_concat(ts_us, '|') from (select ts_us from events order by ts_us)")"
expect_eq "kernel row" 'void k<1, 2>(int)|3.0|1|7|4,1,1|128,1,1|32|1000|11' \
	"$(q $T/a.db "select kernel, dur_us, device, stream, grid, block, registers, shared_mem_bytes, corr_id from v_events where corr_id = 11")"
expect_eq "memcpy bytes" '4000|Pageable' \
	"$(q $T/a.db "select json_extract(metadata, '\$.bytes'), json_extract(metadata, '\$.src_mem_kind') from v_events where corr_id = 10")"

# The file grows and is touched later: the new rows keep the first run's clock.
echo '11000000,500,13,4,1,1,128,1,1,32,0.000,0.001,,,,,NVIDIA A100 (1),1,,7,k2' >> $T/logs/run_cuda_gpu_trace.csv
touch -d '2025-03-02 00:00:00 UTC' $T/logs/run_cuda_gpu_trace.csv
ingest $T/a.db $T/logs || fail "second ingest"
expect_eq "grown" "4|1740830400001999" "$(q $T/a.db "select count(*), max(ts_us) from events")"
ingest $T/a.db $T/logs || fail "third ingest"
expect_eq "re-run" 4 "$(q $T/a.db "select count(*) from events")"

# --- the real files -----------------------------------------------------
N=$REALDATA/nsys-stats
if [ ! -d "$N" ]; then
	echo "skipped: $N absent (real nsys files)"
	exit 0
fi
mkdir -p $T/real
cp "$N"/*/* $T/real/
touch -d '2025-03-01 12:00:00 UTC' $T/real/torch-ex_cuda_gpu_trace_base.csv
ingest $T/r.db $T/real 2>/dev/null || fail "ingest of the real files"
# 2,685 rows (python3 csv count); the last ends at 2,486,462,999 ns: time 0 is
# 1740830400000000 - 2486462; first start 1,949,099,896 ns, last 2,486,459,031 ns.
expect_eq "real rows" "2685|nsys|1740830399462637|1740830399999997" \
	"$(q $T/r.db "select count(*), group_concat(distinct source), min(ts_us), max(ts_us) from v_events")"
expect_eq "transcript" "skipped|an nsys --stats summary, not a trace: export with nsys stats --report cuda_gpu_trace --format csv" \
	"$(q $T/r.db "select status, note from files where path like '%torch_gcn_profile_nsys.txt'")"
"$INGEST" --db $T/r.db $T/real > $T/out 2>&1 || fail "re-run"
grep -q "0 lines stored" $T/out || fail "re-run stored lines: $(cat $T/out)"
exit 0
