# nvidia-smi -q -x (fmt_nvsmiqx.c) against nvidia-smi -q (fmt_nvsmiq.c) of the
# same H100 (fixtures/nvsmiq-h100, recorded within one second): the same
# inventory row, and each field equal to what python's xml.etree reads from
# the XML (an independent reader).
. tests/cli/lib.sh

F=fixtures/nvsmiq-h100
out=$("$INGEST" --db $T/db $F 2>&1) || fail "ingest: $out"
expect_eq "formats" "nvsmiq nvsmiqx" \
	"$(q $T/db "select format from v_files order by path" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "rejects" 0 "$(q $T/db 'select count(*) from rejects')"
expect_eq "one inventory per file" "1 1" \
	"$(q $T/db "select count(*) from v_events where json_extract(metadata, '\$.inventory') = 1 group by path" | tr '\n' ' ' | sed 's/ $//')"
# the inventory row (no power, temperature or memory in use: they change between two reads)
row() {
	q $T/db "select json_remove(metadata, '\$.power_w', '\$.temperature_c', '\$.memory_used_mib')
		from v_events where path like '%$1'"
}
expect_eq "XML row = text row" "$(row nvidia-smi-q.txt)" "$(row nvidia-smi-q.xml)"
want=$(python3 - "$F/nvidia-smi-q.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
g = r.find('gpu')
num = lambda p: float(g.find(p).text.split()[0])
ecc = lambda part: int(sum(int(e.text) for e in g.find('ecc_errors/' + part)
			   if e.text.strip().isdigit() and 'threshold' not in e.tag and 'uncorrectable' in e.tag))
reasons = [e.tag for e in g.find('clocks_event_reasons') if e.text == 'Active']
print(g.get('id'), g.find('uuid').text, g.find('product_name').text, r.find('driver_version').text,
      r.find('cuda_version').text, g.find('vbios_version').text, '%g' % num('fb_memory_usage/total'),
      ecc('volatile'), ecc('aggregate'), g.find('remapped_rows/remapped_row_corr').text, len(reasons), sep='|')
PY
)
expect_eq "fields against xml.etree" "$want" \
	"$(q $T/db "select json_extract(metadata, '\$.pci'), json_extract(metadata, '\$.uuid'),
		json_extract(metadata, '\$.name'), json_extract(metadata, '\$.driver'),
		json_extract(metadata, '\$.cuda'), json_extract(metadata, '\$.vbios'),
		json_extract(metadata, '\$.memory_total_mib'),
		json_extract(metadata, '\$.ecc_volatile_uncorrected'),
		json_extract(metadata, '\$.ecc_aggregate_uncorrected'),
		json_extract(metadata, '\$.remapped_rows_correctable'),
		length(json_extract(metadata, '\$.clocks_event_reasons')) - length(replace(json_extract(metadata, '\$.clocks_event_reasons'), ',', '')) + 1
		from v_events where path like '%.xml'")"
# the devices section: one GPU, whichever form was read last
"$REPORT" --db $T/db --since 2026-11-26 --until 2026-11-27 --format json --no-charts --output-dir $T/r \
	>/dev/null 2>&1 || fail "report"
expect_eq "devices" "1 GPU-c5aa49ed-eaf7-b848-3608-ccc3bc9ca506" \
	"$(python3 -c "import json; d=json.load(open('$T/r/report.json'))['devices']; print(len(d), d[0]['uuid'])")"

# a document laid out otherwise (all on one line, two GPUs, an entity) and one cut short
python3 - "$F/nvidia-smi-q.xml" "$T/x" <<'PY'
import sys, os, re
s = open(sys.argv[1]).read()
os.makedirs(sys.argv[2])
g = re.search(r'<gpu id=.*?</gpu>', s, re.S).group(0)
g2 = g.replace('00000000:00:06.0', '00000000:00:07.0').replace('<minor_number>0<', '<minor_number>1<') \
      .replace('NVIDIA H100 80GB HBM3', 'NVIDIA H100 &amp; friends')
one = s.replace(g, g + g2)
open(sys.argv[2] + '/one-line.xml', 'w').write(re.sub(r'>\s+<', '><', one))
open(sys.argv[2] + '/cut.xml', 'w').write(s[:s.index('<ecc_errors>')])
PY
"$INGEST" -q --db $T/x.db $T/x 2>/dev/null || fail "ingest other layouts"
expect_eq "one line: both GPUs" "0 NVIDIA H100 80GB HBM3 00000000:00:06.0|1 NVIDIA H100 & friends 00000000:00:07.0" \
	"$(q $T/x.db "select json_extract(metadata, '\$.index') || ' ' || json_extract(metadata, '\$.name') || ' ' ||
		json_extract(metadata, '\$.pci') from v_events where path like '%one-line.xml' order by 1" | tr '\n' '|' | sed 's/|$//')"
expect_eq "cut short: what came before the cut" "GPU-c5aa49ed-eaf7-b848-3608-ccc3bc9ca506 81559 null" \
	"$(q $T/x.db "select json_extract(metadata, '\$.uuid'), json_extract(metadata, '\$.memory_total_mib'),
		coalesce(json_extract(metadata, '\$.ecc_aggregate_uncorrected'), 'null') from v_events where path like '%cut.xml'" | tr '|' ' ')"
exit 0
