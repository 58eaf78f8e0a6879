/*
 * findings_evidence.c - a finding's evidence from a GPU's clocks event reasons, its ECC
 * counters and the processes on it (findings_evidence.h).
 *
 * In: the rows of the series table whose metric is one of
 *   nvidia_smi.clocks_event_reasons.active (older drivers: clocks_throttle_reasons.active),
 *     the active reasons as a bit mask ("0x0000000000000020": SW thermal slowdown), or one
 *     reason's own column, nvidia_smi.clocks_event_reasons.sw_thermal_slowdown (1: Active);
 *     dmon's pviol (% of the period the power cap held the clock) and tviol (thermal, 0/1);
 *   gpu.ecc_errors, gpu.ecc_uncorrected_aggregate, gpu.retired_pages and any other metric
 *     with "ecc" in its name: counters;
 *   compute_apps.memory_used_mib (--query-compute-apps; the GPU by its uuid, mapped to its
 *     index by the uuid label of the GPU's own nvidia-smi rows) and pmon.memory_used_mib:
 *     one process's memory; pmon.utilization_pct: one process's share of the SMs;
 * and their samples by time bucket. Out: evidence over a finding's interval against just
 * before it: "throttle" (the reasons that were active in at least half the interval's
 * samples and at most a quarter of those before; before/during: the largest such reason's
 * shares), "ecc" (a counter that rose; before/during: its highest value), "process" (a
 * process that compute-apps lists in the interval and not before; shares of buckets),
 * "process_busier" (pmon: a process there before that took 20 points more of the SMs and
 * half as much again; its mean %), "process_memory" (a process whose memory grew by a
 * quarter and 1 GiB; its mean MiB).
 */
#include "findings_evidence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"

enum fk { FK_NONE, FK_MASK, FK_REASON, FK_ECC, FK_APP_MEM, FK_PMON_MEM, FK_PMON_SM };

/* nvidia-smi's reasons, by bit (nvmlClocksEventReasons); 0x1, the GPU idle, is no slowdown */
#define NR 10
static const char *const reason_names[NR] = {
	"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
	"display_clock_setting", "power_violation",
};
#define R_THERMAL_VIOLATION 6	/* dmon's tviol counts as hw_thermal_slowdown */
#define R_POWER_VIOLATION 9

struct frow {
	int kind;
	int reason;			/* FK_REASON: its bit */
	const struct gl_query_series *qs;
	const char *metric;		/* borrowed, as qs */
	double *sum;			/* per bucket: sum (FK_MASK: per reason, NR per bucket) */
	uint32_t *n;			/* per bucket: samples */
	double *max;			/* FK_ECC: per bucket, NAN when none */
};

struct gl_fev {
	size_t n_rows, nb;
	struct frow *rows;
	int any;
};

struct gl_fev *gl_fev_new(size_t n_rows, size_t n_buckets)
{
	struct gl_fev *fe = calloc(1, sizeof(*fe));

	if (!fe)
		return NULL;
	fe->n_rows = n_rows;
	fe->nb = n_buckets;
	fe->rows = calloc(n_rows ? n_rows : 1, sizeof(*fe->rows));
	if (!fe->rows) {
		free(fe);
		return NULL;
	}
	return fe;
}

void gl_fev_free(struct gl_fev *fe)
{
	if (!fe)
		return;
	for (size_t i = 0; i < fe->n_rows; i++) {
		free(fe->rows[i].sum);
		free(fe->rows[i].n);
		free(fe->rows[i].max);
	}
	free(fe->rows);
	free(fe);
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* "nvidia_smi.clocks_event_reasons.sw_thermal_slowdown": the reason's bit, -1: none. */
static int reason_of(const char *m)
{
	const char *p = strstr(m, "clocks_event_reasons.");

	if (!p)
		p = strstr(m, "clocks_throttle_reasons.");
	if (!p)
		return -1;
	p = strchr(p, '.') + 1;
	for (int k = 1; k < NR; k++)
		if (!strcmp(p, reason_names[k]))
			return k;
	/* older drivers: hw_thermal / sw_thermal without _slowdown, hw_power_brake */
	if (!strcmp(p, "sw_thermal"))
		return 5;
	if (!strcmp(p, "hw_thermal"))
		return 6;
	if (!strcmp(p, "hw_power_brake"))
		return 7;
	return -1;
}

static int kind_of(const char *m, int *reason)
{
	*reason = -1;
	if (ends_with(m, "clocks_event_reasons.active") || ends_with(m, "clocks_throttle_reasons.active") ||
	    !strcmp(m, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS") ||
	    !strcmp(m, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"))
		return FK_MASK;
	if ((*reason = reason_of(m)) >= 0)
		return FK_REASON;
	if (!strcmp(m, "dmon.pviol")) {
		*reason = R_POWER_VIOLATION;
		return FK_REASON;
	}
	if (!strcmp(m, "dmon.tviol")) {
		*reason = R_THERMAL_VIOLATION;
		return FK_REASON;
	}
	if (!strcmp(m, "gpu.retired_pages") || strstr(m, "ecc") || strstr(m, "ECC"))
		return strstr(m, "ecc_mode") ? FK_NONE : FK_ECC;
	if (!strcmp(m, "compute_apps.memory_used_mib"))
		return FK_APP_MEM;
	if (!strcmp(m, "pmon.memory_used_mib"))
		return FK_PMON_MEM;
	if (!strcmp(m, "pmon.utilization_pct"))
		return FK_PMON_SM;
	return FK_NONE;
}

int gl_fev_row(struct gl_fev *fe, size_t row, const struct gl_query_series *qs, const char *metric)
{
	struct frow *r;
	int reason, k;

	if (!fe || row >= fe->n_rows || !metric || !qs->device)
		return GL_OK;
	r = &fe->rows[row];
	r->qs = qs;
	r->metric = metric;
	if ((k = kind_of(metric, &reason)) == FK_NONE)
		return GL_OK;
	r->kind = k;
	r->reason = reason;
	r->n = calloc(fe->nb, sizeof(*r->n));
	if (k == FK_ECC)
		r->max = malloc(fe->nb * sizeof(*r->max));
	else
		r->sum = calloc(fe->nb * (k == FK_MASK ? NR : 1), sizeof(*r->sum));
	if (!r->n || (k == FK_ECC ? !r->max : !r->sum)) {
		r->kind = FK_NONE;
		return GL_ENOMEM;
	}
	for (size_t b = 0; k == FK_ECC && b < fe->nb; b++)
		r->max[b] = NAN;
	fe->any = 1;
	return GL_OK;
}

void gl_fev_sample(struct gl_fev *fe, size_t row, size_t b, double v)
{
	struct frow *r;

	if (!fe || row >= fe->n_rows || b >= fe->nb || !isfinite(v))
		return;
	r = &fe->rows[row];
	switch (r->kind) {
	case FK_MASK: {
		uint64_t m = v >= 0 && v < 1e18 ? (uint64_t)v : 0;

		for (int k = 0; k < NR - 1; k++)
			r->sum[b * NR + (size_t)k] += (m >> k) & 1;
		break;
	}
	case FK_REASON:
		/* pviol is a percentage of the period */
		r->sum[b] += r->reason == R_POWER_VIOLATION ? v / 100 : v != 0;
		break;
	case FK_ECC:
		if (isnan(r->max[b]) || v > r->max[b])
			r->max[b] = v;
		break;
	case FK_APP_MEM:
	case FK_PMON_MEM:
	case FK_PMON_SM:
		r->sum[b] += v;
		break;
	default:
		return;
	}
	r->n[b]++;
}

static bool host_match(int64_t a, int64_t b)
{
	return a == b || a == 0 || b == 0;
}

/* Mean of the bucket means of r (reason k of a mask) over [b0, b1); NAN when none. */
static double mean_of(const struct frow *r, int k, size_t b0, size_t b1, size_t nb)
{
	double s = 0;
	size_t c = 0;

	for (size_t b = b0; b < b1 && b < nb; b++)
		if (r->n[b]) {
			s += (r->kind == FK_MASK ? r->sum[b * NR + (size_t)k] : r->sum[b]) / r->n[b];
			c++;
		}
	return c ? s / (double)c : NAN;
}

/* The share of r's buckets in [b0, b1) that hold a sample. */
static double cover(const struct frow *r, size_t b0, size_t b1, size_t nb)
{
	size_t c = 0;

	for (size_t b = b0; b < b1 && b < nb; b++)
		c += r->n[b] > 0;
	return b1 > b0 ? (double)c / (double)(b1 - b0) : 0;
}

/* The highest value of an ECC counter in [b0, b1); NAN when none. */
static double max_of(const struct frow *r, size_t b0, size_t b1, size_t nb)
{
	double m = NAN;

	for (size_t b = b0; b < b1 && b < nb; b++)
		if (!isnan(r->max[b]) && (isnan(m) || r->max[b] > m))
			m = r->max[b];
	return m;
}

/* The value of key in a labels object's text ({"uuid":"GPU-..","pid":"70001"}) into buf. */
static const char *label(const char *labels, const char *key, char *buf, size_t n)
{
	json_t *o = labels ? json_loads(labels, 0, NULL) : NULL;
	json_t *v = json_object_get(o, key);

	buf[0] = 0;
	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	json_decref(o);
	return buf[0] ? buf : NULL;
}

/* The GPU of row r as the findings name it: its index where r names it by a uuid that
 * another row of the same host gives with its index. */
static void device_of(const struct gl_fev *fe, const struct frow *r, char *buf, size_t n)
{
	const char *d = r->qs->device;
	char u[96];

	snprintf(buf, n, "%s", d);
	if (strncmp(d, "GPU-", 4))
		return;
	for (size_t i = 0; i < fe->n_rows; i++) {
		const struct gl_query_series *q = fe->rows[i].qs;

		if (!q || !q->device || !q->labels || !strncmp(q->device, "GPU-", 4) ||
		    q->host_id != r->qs->host_id || !strstr(q->labels, d))
			continue;
		if (label(q->labels, "uuid", u, sizeof(u)) && !strcmp(u, d)) {
			snprintf(buf, n, "%s", q->device);
			return;
		}
	}
}

static void process_detail(const struct frow *r, char *buf, size_t n)
{
	char cmd[64], pid[24];

	snprintf(buf, n, "%s pid %s", label(r->qs->labels, "command", cmd, sizeof(cmd)) ? cmd : "?",
		 label(r->qs->labels, "pid", pid, sizeof(pid)) ? pid : "?");
}

int gl_fev_explain(const struct gl_fev *fe, int64_t host_id, size_t d0, size_t d1, size_t p0,
		   size_t p1, int trend, gl_fev_add_fn add, void *arg)
{
	int rc = GL_OK;

	/* a trend's first and last tenth differ in too many ways: what changed between them
	 * is no evidence of what made it grow */
	if (trend)
		return GL_OK;
	for (size_t i = 0; fe && fe->any && i < fe->n_rows && rc == GL_OK; i++) {
		const struct frow *r = &fe->rows[i];
		struct gl_finding_evidence e = {0};
		double w = 0;

		if (r->kind == FK_NONE || !host_match(r->qs->host_id, host_id))
			continue;
		device_of(fe, r, e.device, sizeof(e.device));
		e.change_pct = NAN;
		e.event = 1;
		switch (r->kind) {
		case FK_MASK:
		case FK_REASON: {
			size_t len = 0;

			for (int k = 1; k < NR; k++) {
				double b, d;

				if (r->kind == FK_REASON && k != r->reason)
					continue;
				b = mean_of(r, k, p0, p1, fe->nb);
				d = mean_of(r, k, d0, d1, fe->nb);
				if (!(d >= 0.5 && (isnan(b) || b <= 0.25)))
					continue;
				len += (size_t)snprintf(e.detail + len, len < sizeof(e.detail) ?
							sizeof(e.detail) - len : 0, "%s%s",
							len ? ", " : "", reason_names[k]);
				if (len >= sizeof(e.detail))
					len = sizeof(e.detail) - 1;
				if (d - (isnan(b) ? 0 : b) > w / 100) {
					e.before = isnan(b) ? 0 : b;
					e.during = d;
					w = 100 * (d - e.before);
				}
			}
			if (!len)
				continue;
			snprintf(e.metric, sizeof(e.metric), "throttle");
			break;
		}
		case FK_ECC:
			e.during = max_of(r, d0, d1, fe->nb);
			/* a counter: its value before the interval is the highest one up to it */
			e.before = max_of(r, d0 > p0 ? p0 : 0, d0 > p0 ? d0 : p1, fe->nb);
			if (!(e.during > e.before))
				continue;
			snprintf(e.metric, sizeof(e.metric), "ecc");
			snprintf(e.detail, sizeof(e.detail), "%s", r->metric);
			e.change_pct = e.before > 0 ? (e.during - e.before) / e.before * 100 : NAN;
			w = 100;
			break;
		case FK_PMON_SM:
			e.before = mean_of(r, 0, p0, p1, fe->nb);
			e.during = mean_of(r, 0, d0, d1, fe->nb);
			/* there before (a new one is sec_findings.c's), 20 points and 1.5x busier */
			if (cover(r, p0, p1, fe->nb) < 0.5 || cover(r, d0, d1, fe->nb) < 0.5 ||
			    !(e.during - e.before >= 20 && e.during >= 1.5 * e.before))
				continue;
			snprintf(e.metric, sizeof(e.metric), "process_busier");
			process_detail(r, e.detail, sizeof(e.detail));
			e.change_pct = e.before > 0 ? (e.during - e.before) / e.before * 100 : NAN;
			w = 50 + (e.during - e.before);
			break;
		case FK_APP_MEM:
		case FK_PMON_MEM: {
			double cb = cover(r, p0, p1, fe->nb), cd = cover(r, d0, d1, fe->nb);

			process_detail(r, e.detail, sizeof(e.detail));
			if (r->kind == FK_APP_MEM && cb <= 0.25 && cd >= 0.5) {
				/* a process compute-apps lists in the interval and not before */
				snprintf(e.metric, sizeof(e.metric), "process");
				e.before = cb;
				e.during = cd;
				w = 100;
				break;
			}
			e.before = mean_of(r, 0, p0, p1, fe->nb);
			e.during = mean_of(r, 0, d0, d1, fe->nb);
			if (!(e.during >= 1.25 * e.before && e.during - e.before >= 1024))
				continue;
			snprintf(e.metric, sizeof(e.metric), "process_memory");
			e.change_pct = e.before > 0 ? (e.during - e.before) / e.before * 100 : NAN;
			e.event = 0;
			w = isfinite(e.change_pct) ? e.change_pct / 2 : 50;
			break;
		}
		default:
			continue;
		}
		rc = add(arg, &e, w);
	}
	return rc;
}

static const struct gl_finding_evidence *implicated(const struct gl_finding *fd, const char *metric)
{
	for (size_t i = 0; i < fd->n_evidence; i++)
		if (fd->evidence[i].implicated && !strcmp(fd->evidence[i].metric, metric))
			return &fd->evidence[i];
	return NULL;
}

const char *gl_fev_cause(const struct gl_finding *fd, char *buf, size_t n)
{
	const struct gl_finding_evidence *e;

	if ((e = implicated(fd, "ecc")))
		snprintf(buf, n, "the GPU reported ECC errors (%.0f \xE2\x86\x92 %.0f)", e->before,
			 e->during);
	else if ((e = implicated(fd, "throttle")))
		snprintf(buf, n, "the GPU's clocks were held back (%s)", e->detail);
	else if ((e = implicated(fd, "process_busier")))
		snprintf(buf, n, "a process on the GPU got busier (%s, %.0f%% \xE2\x86\x92 %.0f%% of "
			 "the SMs)", e->detail, e->before, e->during);
	else
		return NULL;
	return buf;
}
