/*
 * config.c - parses gpulog-report's JSON configuration (jansson). The
 * built-in defaults are the same JSON text as share/gpulog.conf.json, read
 * by the same parser, so the two cannot drift apart unnoticed (a unit test
 * compares them).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const char default_json[] =
	"{\"trends\": {\"p_value\": 0.01, \"min_change_pct\": 10},"
	" \"anomalies\": {\"method\": \"stddev\", \"k\": 3, \"window\": 100, \"min_samples\": 10},"
	" \"baseline\": {\"p_value\": 0.01, \"min_change_pct\": 10},"
	" \"errors\": {\"max_shapes\": 10000, \"min_events_for_rate\": 50},"
	" \"alerts\": ["
	"  {\"rule\": \"kernel_mean_change_pct\", \"match\": \"*\", \"warning\": 10, \"critical\": 50},"
	"  {\"rule\": \"kernel_trend_change_pct\", \"match\": \"*\", \"warning\": 10, \"critical\": 50},"
	"  {\"rule\": \"kernel_anomaly_pct\", \"match\": \"*\", \"warning\": 1, \"critical\": 5},"
	"  {\"rule\": \"error_rate_per_1000\", \"match\": \"*\", \"warning\": 10, \"critical\": 100},"
	"  {\"rule\": \"memory_trend_change_pct\", \"warning\": 10, \"critical\": 50},"
	"  {\"rule\": \"rmm_leaked_bytes\", \"warning\": 1, \"critical\": 1073741824},"
	"  {\"rule\": \"rmm_allocation_failures\", \"warning\": 1, \"critical\": 100},"
	"  {\"rule\": \"failed_requests_pct_above\", \"warning\": 1, \"critical\": 5},"
	"  {\"rule\": \"finding\", \"match\": \"*\", \"warning\": 20, \"critical\": 100},"
	"  {\"rule\": \"xid\", \"match\": \"*\", \"critical\": 1}"
	" ]}";

static const char *const rule_names[GL_RULE_COUNT] = {
	"kernel_p95_us", "kernel_mean_change_pct", "kernel_trend_change_pct",
	"kernel_anomaly_pct", "error_rate_per_1000", "errors_per_hour",
	"memory_trend_change_pct", "rmm_leaked_bytes", "rmm_allocation_failures",
	"metric_above", "metric_below", "metric_trend_change_pct",
	"tokens_per_second_below", "ttft_p95_above", "failed_requests_pct_above", "finding",
	"xid",
};

static const char *const stat_names[] = {"mean", "max", "min", "p95", "last"};

const char *gl_metric_stat_name(enum gl_metric_stat s)
{
	return (unsigned)s < sizeof(stat_names) / sizeof(stat_names[0]) ? stat_names[s] : "";
}

/*
 * The seed performance monitor's alert_thresholds keys and the metrics they
 * judge. Its host memory figure is a percentage; gpulog's vocabulary has
 * host memory in MiB only, so memory_usage judges any host.memory*_pct a
 * source writes (none of today's sources do: the rule then fires never).
 */
static const struct {
	const char *key, *metric;
	bool below;		/* the alert fires below the threshold (a throughput) */
} seed_keys[] = {
	/* the monitor's own metric (metrics_history.json's "token_throughput"):
	 * "token_throughput below minimum" */
	{"token_throughput", "token_throughput", true},
	{"cpu_usage", "host.cpu_pct"},
	{"memory_usage", "host.memory*_pct"},
	{"gpu_utilization", "gpu.utilization_pct"},
	{"gpu_memory_utilization", "gpu.memory_utilization_pct"},
	{"gpu_temperature", "gpu.temperature_c"},
	{"gpu_power", "gpu.power_w"},
};

const char *gl_rule_kind_name(enum gl_rule_kind kind)
{
	return kind < GL_RULE_COUNT ? rule_names[kind] : "";
}

static int bad(struct gl_err *err, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct gl_err *err, const char *name, const char *fmt, ...)
{
	char cause[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	return gl_err_set(err, GL_ECONFIG, name, 0, cause, "bad configuration");
}

/* A number in [lo, hi]; integer when want_int. */
static int get_number(json_t *v, const char *sect, const char *key, double lo, double hi,
		      bool want_int, double *out, const char *name, struct gl_err *err)
{
	char where[128];

	snprintf(where, sizeof(where), "%s%s%s", sect, *sect ? "." : "", key);
	if (!json_is_number(v) || (want_int && !json_is_integer(v)))
		return bad(err, name, "%s must be %s", where, want_int ? "an integer" : "a number");
	double d = json_number_value(v);
	if (!(d >= lo && d <= hi) || !isfinite(d)) {
		char range[96];

		snprintf(range, sizeof(range), " between %g and %g", lo, hi);
		return bad(err, name, "%s must be%s", where, range);
	}
	*out = d;
	return GL_OK;
}

static int parse_section(json_t *obj, const char *sect, struct gl_report_config *cfg,
			 const char *name, struct gl_err *err)
{
	const char *key;
	json_t *v;
	double d = 0;
	int rc = GL_OK;

	if (!json_is_object(obj))
		return bad(err, name, "%s must be an object%s", sect, "");
	json_object_foreach(obj, key, v) {
		if (!strcmp(sect, "trends") && !strcmp(key, "p_value")) {
			rc = get_number(v, sect, key, 0, 1, false, &cfg->trend_p_value, name, err);
		} else if (!strcmp(sect, "trends") && !strcmp(key, "min_change_pct")) {
			rc = get_number(v, sect, key, 0, 1e9, false, &cfg->trend_min_change_pct,
					name, err);
		} else if (!strcmp(sect, "baseline") && !strcmp(key, "p_value")) {
			rc = get_number(v, sect, key, 0, 1, false, &cfg->baseline_p_value, name, err);
		} else if (!strcmp(sect, "baseline") && !strcmp(key, "min_change_pct")) {
			rc = get_number(v, sect, key, 0, 1e9, false, &cfg->baseline_min_change_pct,
					name, err);
		} else if (!strcmp(sect, "anomalies") && !strcmp(key, "method")) {
			const char *m = json_string_value(v);

			if (m && !strcmp(m, "stddev"))
				cfg->anomaly_method = GL_ANOMALY_STDDEV;
			else if (m && !strcmp(m, "mad"))
				cfg->anomaly_method = GL_ANOMALY_MAD;
			else
				rc = bad(err, name, "%s.method must be \"stddev\" or \"mad\"%s", sect, "");
		} else if (!strcmp(sect, "anomalies") && !strcmp(key, "k")) {
			rc = get_number(v, sect, key, 0, 1e6, false, &cfg->anomaly_k, name, err);
		} else if (!strcmp(sect, "anomalies") && !strcmp(key, "window")) {
			rc = get_number(v, sect, key, 2, 1000000, true, &d, name, err);
			cfg->anomaly_window = (unsigned)d;
		} else if (!strcmp(sect, "anomalies") && !strcmp(key, "min_samples")) {
			rc = get_number(v, sect, key, 2, 1000000, true, &d, name, err);
			cfg->anomaly_min_samples = (unsigned)d;
		} else if (!strcmp(sect, "errors") && !strcmp(key, "min_events_for_rate")) {
			rc = get_number(v, sect, key, 0, 1e12, true, &d, name, err);
			cfg->min_events_for_rate = (uint64_t)d;
		} else if (!strcmp(sect, "errors") && !strcmp(key, "max_shapes")) {
			rc = get_number(v, sect, key, 1, 10000000, true, &d, name, err);
			cfg->max_shapes = (unsigned)d;
		} else {
			rc = bad(err, name, "unknown key '%s' in %s", key, sect);
		}
		if (rc != GL_OK)
			return rc;
	}
	return GL_OK;
}

static int parse_rule(json_t *obj, size_t i, struct gl_alert_rule *r, const char *name,
		      struct gl_err *err)
{
	static const char *const sev[3] = {"info", "warning", "critical"};
	char where[64];
	const char *key;
	json_t *v;
	bool have_rule = false, any = false, have_metric = false, have_stat = false;
	int rc = GL_OK;

	snprintf(where, sizeof(where), "alerts[%zu]", i);
	if (!json_is_object(obj))
		return bad(err, name, "%s must be an object%s", where, "");
	json_object_foreach(obj, key, v) {
		int s = -1;

		for (int k = 0; k < 3; k++)
			if (!strcmp(key, sev[k]))
				s = k;
		if (!strcmp(key, "rule")) {
			const char *n = json_string_value(v);
			int found = -1;

			for (int k = 0; n && k < GL_RULE_COUNT; k++)
				if (!strcmp(n, rule_names[k]))
					found = k;
			if (found < 0)
				return bad(err, name, "%s.rule: unknown rule '%s'", where,
					   n ? n : "(not a string)");
			r->kind = (enum gl_rule_kind)found;
			have_rule = true;
		} else if (!strcmp(key, "statistic")) {
			const char *n = json_string_value(v);
			int found = -1;

			for (int k = 0; n && k < (int)(sizeof(stat_names) / sizeof(stat_names[0])); k++)
				if (!strcmp(n, stat_names[k]))
					found = k;
			if (found < 0)
				return bad(err, name,
					   "%s.statistic must be mean, max, min, p95 or last, not '%s'",
					   where, n ? n : "(not a string)");
			r->stat = (enum gl_metric_stat)found;
			have_stat = true;
		} else if (!strcmp(key, "match") || !strcmp(key, "metric")) {
			if (!json_is_string(v))
				return bad(err, name, "%s.%s must be a string", where, key);
			have_metric |= !strcmp(key, "metric");
			free(r->match);
			r->match = strdup(json_string_value(v));
			if (!r->match)
				return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		} else if (s >= 0) {
			rc = get_number(v, where, key, -1e300, 1e300, false, &r->threshold[s], name,
					err);
			if (rc != GL_OK)
				return rc;
			r->has[s] = true;
			any = true;
		} else {
			return bad(err, name, "unknown key '%s' in %s", key, where);
		}
	}
	if (!have_rule)
		return bad(err, name, "%s has no \"rule\"%s", where, "");
	bool metric_rule = r->kind == GL_RULE_METRIC_ABOVE || r->kind == GL_RULE_METRIC_BELOW;
	if (metric_rule && !have_metric)
		return bad(err, name, "%s (%s) needs \"metric\": a glob on metric names", where,
			   rule_names[r->kind]);
	if (!metric_rule && have_metric && r->kind != GL_RULE_METRIC_TREND_CHANGE_PCT)
		return bad(err, name, "%s: \"metric\" is for metric rules; use \"match\"%s", where,
			   "");
	if (!metric_rule && have_stat)
		return bad(err, name, "%s: \"statistic\" is for metric_above and metric_below%s",
			   where, "");
	if (!any)
		return bad(err, name, "%s has no info, warning or critical threshold%s", where, "");
	if (!r->match && !(r->match = strdup("*")))
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return GL_OK;
}

static int parse_alerts(json_t *arr, struct gl_report_config *cfg, const char *name,
			struct gl_err *err)
{
	size_t n;

	if (!json_is_array(arr))
		return bad(err, name, "alerts must be an array%s%s", "", "");
	for (size_t i = 0; i < cfg->n_rules; i++) {
		free(cfg->rules[i].match);
		free(cfg->rules[i].origin);
	}
	free(cfg->rules);
	cfg->rules = NULL;
	cfg->n_rules = 0;
	n = json_array_size(arr);
	if (n == 0)
		return GL_OK;
	cfg->rules = calloc(n, sizeof(*cfg->rules));
	if (!cfg->rules)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		cfg->n_rules = i + 1;
		int rc = parse_rule(json_array_get(arr, i), i, &cfg->rules[i], name, err);
		if (rc != GL_OK)
			return rc;
	}
	return GL_OK;
}

static struct gl_alert_rule *add_rule(struct gl_report_config *cfg, struct gl_err *err)
{
	struct gl_alert_rule *r = realloc(cfg->rules, (cfg->n_rules + 1) * sizeof(*r));

	if (!r) {
		gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		return NULL;
	}
	cfg->rules = r;
	r = &r[cfg->n_rules++];
	memset(r, 0, sizeof(*r));
	return r;
}

/*
 * The seed performance monitor's {"alert_thresholds": {"cpu_usage": 85.0,
 * ...}}: each key becomes a metric_above rule on its metric (seed_keys, or
 * the key itself when it is a metric name, "gpu.power_w"), a warning at the
 * threshold, judged on the series' maximum (the seed compared every reading).
 */
static int parse_seed_thresholds(json_t *obj, struct gl_report_config *cfg, const char *name,
				 struct gl_err *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return bad(err, name, "alert_thresholds must be an object%s%s", "", "");
	json_object_foreach(obj, key, v) {
		const char *metric = NULL;
		bool below = false;
		struct gl_alert_rule *r;
		char origin[160];
		double d = 0;
		int rc;

		for (size_t k = 0; k < sizeof(seed_keys) / sizeof(seed_keys[0]); k++)
			if (!strcmp(key, seed_keys[k].key)) {
				metric = seed_keys[k].metric;
				below = seed_keys[k].below;
			}
		if (!metric && strchr(key, '.'))
			metric = key;
		if (!metric)
			return bad(err, name,
				   "unknown key '%s' in alert_thresholds (known: cpu_usage, memory_usage,"
				   " gpu_utilization, gpu_memory_utilization, gpu_temperature, gpu_power,"
				   " token_throughput, or a metric name such as gpu.power_w)", key);
		if ((rc = get_number(v, "alert_thresholds", key, -1e300, 1e300, false, &d, name,
				     err)) != GL_OK)
			return rc;
		if (!(r = add_rule(cfg, err)))
			return GL_ENOMEM;
		snprintf(origin, sizeof(origin), "alert_thresholds.%s", key);
		/* the seed compared every reading: the series' extreme */
		r->kind = below ? GL_RULE_METRIC_BELOW : GL_RULE_METRIC_ABOVE;
		r->stat = below ? GL_METRIC_MIN : GL_METRIC_MAX;
		r->has[GL_SEVERITY_WARNING] = true;
		r->threshold[GL_SEVERITY_WARNING] = d;
		r->match = strdup(metric);
		r->origin = strdup(origin);
		if (!r->match || !r->origin)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	return GL_OK;
}

/*
 * {"degradation_detection": {"window_size": 10, "threshold": 0.15}}: the
 * metric trends' verdict (see config.h), and a metric_trend_change_pct
 * warning at threshold * 100 % on every degrading metric series.
 */
static int parse_seed_degradation(json_t *obj, struct gl_report_config *cfg, const char *name,
				  struct gl_err *err)
{
	const char *key;
	json_t *v;
	double d = 0;
	bool have_thr = false, enabled = true;
	int rc;

	if (!json_is_object(obj))
		return bad(err, name, "degradation_detection must be an object%s%s", "", "");
	cfg->degrade_window = 10;
	json_object_foreach(obj, key, v) {
		if (!strcmp(key, "window_size")) {
			rc = get_number(v, "degradation_detection", key, 2, 1e9, true, &d, name, err);
			cfg->degrade_window = (unsigned)d;
		} else if (!strcmp(key, "threshold")) {
			rc = get_number(v, "degradation_detection", key, 1e-9, 1e9, false,
					&cfg->degrade_threshold, name, err);
			have_thr = true;
		} else if (!strcmp(key, "enabled")) {
			if (!json_is_boolean(v))
				rc = bad(err, name, "degradation_detection.enabled must be true or"
					 " false%s%s", "", "");
			else
				enabled = json_is_true(v);
		} else {
			rc = bad(err, name, "unknown key '%s' in degradation_detection", key);
		}
		if (rc != GL_OK)
			return rc;
	}
	if (!enabled) {		/* the monitor's switch: off, no degradation rule */
		cfg->degrade_threshold = 0;
		return GL_OK;
	}
	if (!have_thr)
		return bad(err, name, "degradation_detection has no threshold%s%s", "", "");
	struct gl_alert_rule *r = add_rule(cfg, err);
	if (!r)
		return GL_ENOMEM;
	r->kind = GL_RULE_METRIC_TREND_CHANGE_PCT;
	r->has[GL_SEVERITY_WARNING] = true;
	r->threshold[GL_SEVERITY_WARNING] = cfg->degrade_threshold * 100;
	r->match = strdup("*");
	r->origin = strdup("degradation_detection");
	if (!r->match || !r->origin)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return GL_OK;
}

static int parse_into(const char *text, const char *name, struct gl_report_config *cfg,
		      struct gl_err *err)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	const char *key;
	json_t *v;
	double ignored;
	int rc = GL_OK;

	if (!root)
		return gl_err_set(err, GL_ECONFIG, name, (uint64_t)jerr.line, jerr.text,
				  "bad configuration");
	if (!json_is_object(root)) {
		rc = bad(err, name, "the configuration must be a JSON object%s%s", "", "");
		goto out;
	}
	/* the seed's keys add rules after "alerts" has replaced the defaults */
	json_object_foreach(root, key, v) {
		if (!strcmp(key, "alert_thresholds") || !strcmp(key, "degradation_detection"))
			continue;
		if (!strcmp(key, "alerts"))
			rc = parse_alerts(v, cfg, name, err);
		else if (!strcmp(key, "trends") || !strcmp(key, "anomalies") ||
			 !strcmp(key, "baseline") || !strcmp(key, "errors"))
			rc = parse_section(v, key, cfg, name, err);
		/*
		 * The monitor's own settings, in its configuration file next to
		 * alert_thresholds: how often it sampled and how many entries its
		 * history keeps. They say how the files were written, not how to
		 * judge them: checked and accepted.
		 */
		else if (!strcmp(key, "monitoring_interval"))
			rc = get_number(v, "", key, 1e-9, 1e9, false, &ignored, name, err);
		else if (!strcmp(key, "max_metrics_history"))
			rc = get_number(v, "", key, 1, 1e15, true, &ignored, name, err);
		else
			rc = bad(err, name, "unknown key '%s'%s", key, "");
		if (rc != GL_OK)
			goto out;
	}
	if ((v = json_object_get(root, "alert_thresholds")) &&
	    (rc = parse_seed_thresholds(v, cfg, name, err)) != GL_OK)
		goto out;
	if ((v = json_object_get(root, "degradation_detection")) &&
	    (rc = parse_seed_degradation(v, cfg, name, err)) != GL_OK)
		goto out;
	if (cfg->anomaly_min_samples > cfg->anomaly_window)
		rc = bad(err, name, "anomalies.min_samples must not exceed anomalies.window%s%s",
			 "", "");
out:
	json_decref(root);
	return rc;
}

int gl_config_defaults(struct gl_report_config *cfg, struct gl_err *err)
{
	memset(cfg, 0, sizeof(*cfg));
	int rc = parse_into(default_json, "built-in defaults", cfg, err);
	if (rc != GL_OK)
		gl_config_release(cfg);
	return rc;
}

int gl_config_parse(const char *text, const char *name, struct gl_report_config *cfg,
		    struct gl_err *err)
{
	int rc = gl_config_defaults(cfg, err);

	if (rc == GL_OK)
		rc = parse_into(text, name, cfg, err);
	if (rc != GL_OK)
		gl_config_release(cfg);
	return rc;
}

int gl_config_load(const char *path, struct gl_report_config *cfg, struct gl_err *err)
{
	FILE *fp = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (!fp)
		return gl_err_set(err, GL_ECONFIG, path, 0, strerror(errno), "cannot open");
	for (;;) {
		if (cap - len < 4096) {
			char *p = cap > (1u << 24) ? NULL : realloc(text, cap + 8192);

			if (!p) {
				rc = gl_err_set(err, GL_ECONFIG, path, 0, "file too large",
						"cannot read");
				goto out;
			}
			text = p;
			cap += 8192;
		}
		size_t k = fread(text + len, 1, cap - len - 1, fp);
		len += k;
		if (k == 0)
			break;
	}
	if (ferror(fp)) {
		rc = gl_err_set(err, GL_ECONFIG, path, 0, strerror(errno), "cannot read");
		goto out;
	}
	text[len] = '\0';
	rc = gl_config_parse(text, path, cfg, err);
out:
	free(text);
	fclose(fp);
	return rc;
}

void gl_config_release(struct gl_report_config *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_rules; i++) {
		free(cfg->rules[i].match);
		free(cfg->rules[i].origin);
	}
	free(cfg->rules);
	memset(cfg, 0, sizeof(*cfg));
}
