# The default alert rule "xid" (share/gpulog.conf.json): one critical alert
# per PCI bus and Xid code whose catalogue action is a reset, a drain or a
# support case (48, 63/64, 74, 79, 92, 94/95, 119/120, 140, 143), none for the
# codes an application causes (13, 31); the verdict and --fail-on follow it.
# Expected rows by hand from the lines written below.
. tests/cli/lib.sh

mkdir -p $T/a $T/b
cat >$T/a/kern.log <<'LOG'
Nov 16 10:00:00 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
Nov 16 10:00:05 node1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
Nov 16 10:01:00 node1 kernel: NVRM: Xid (PCI:0000:18:00): 13, pid=99, name=python3, Graphics Exception: ESR 0x405840=0x3a000000
Nov 16 10:02:00 node1 kernel: NVRM: Xid (PCI:0000:18:00): 48, pid=99, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition 0.
Nov 16 10:03:00 node1 kernel: NVRM: Xid (PCI:0000:18:00): 94, pid=99, name=python3, Contained: SM (0x1). RST: No, D-RST: No
Nov 16 10:04:00 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 119, pid=777, name=python3, Timeout after 6s of waiting for RPC response from GPU1 GSP!
Nov 16 10:05:00 node1 kernel: NVRM: Xid (PCI:0000:5e:00): 31, pid=777, name=python3, Ch 00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS
LOG
grep -v ': 79,\|: 48,\|: 94,\|: 119,' $T/a/kern.log >$T/b/kern.log
touch -d '2025-11-16T23:00:00Z' $T/a/kern.log $T/b/kern.log
"$INGEST" -q --db $T/a.db $T/a 2>/dev/null || fail "ingest a"
"$INGEST" -q --db $T/b.db $T/b 2>/dev/null || fail "ingest b"
W="--until 2025-11-17 --days 7 --format json --no-charts"
rc=0; "$REPORT" --db $T/a.db $W --output-dir $T/ra --fail-on critical >/dev/null 2>&1 || rc=$?
expect_eq "--fail-on critical with a lost GPU" 3 "$rc"
py() { python3 -c "import json; r=json.load(open('$1/report.json')); $2"; }
expect_eq "xid alerts" "critical xid Xid 119 on 0000:5e:00 1|critical xid Xid 48 on 0000:18:00 1|critical xid Xid 79 on 0000:3b:00 2|critical xid Xid 94 on 0000:18:00 1" \
	"$(py $T/ra "print('|'.join(sorted('%s %s %s %d' % (a['severity'], a['rule'], a['subject'], a['value']) for a in r['alerts'] if a['rule'] == 'xid')))")"
expect_eq "status" "critical" "$(py $T/ra "print(r['summary']['status'])")"
expect_eq "message" "Xid 79 on 0000:3b:00: GPU has fallen off the bus, records 2 (critical at 1)" \
	"$(py $T/ra "print([a['message'] for a in r['alerts'] if a['subject'] == 'Xid 79 on 0000:3b:00'][0])")"

# only the codes an application causes: no xid alert, the run passes --fail-on critical
rc=0; "$REPORT" --db $T/b.db $W --output-dir $T/rb --fail-on critical >/dev/null 2>&1 || rc=$?
expect_eq "--fail-on critical without a critical Xid" 0 "$rc"
expect_eq "no xid alert" 0 "$(py $T/rb "print(sum(a['rule'] == 'xid' for a in r['alerts']))")"

# the rule's glob narrows it like any other rule's
printf '{"alerts": [{"rule": "xid", "match": "Xid 79 *", "warning": 1, "critical": 3}]}\n' >$T/c.json
"$REPORT" --db $T/a.db $W --output-dir $T/rc --config $T/c.json >/dev/null 2>&1 || fail "report --config"
expect_eq "narrowed" "warning Xid 79 on 0000:3b:00" \
	"$(py $T/rc "print('|'.join('%s %s' % (a['severity'], a['subject']) for a in r['alerts']))")"
exit 0
