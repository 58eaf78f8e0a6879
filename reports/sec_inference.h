/*
 * sec_inference.h - the results of the inference section
 * (sec_inference.c), kept in its own state: requests and tokens of the
 * window. Read by the other sections (alerts) and tests through
 * gl_inference_result.
 */
#ifndef GL_SEC_INFERENCE_H
#define GL_SEC_INFERENCE_H

#include "report.h"

/* The samples of one inference quantity in the window; NAN figures when count is 0. */
struct gl_report_dist {
	uint64_t count;
	double mean, p50, p95, p99, min, max;
};

/* A Prometheus counter series (name ending _total): its increase over the window. */
struct gl_report_prom_counter {
	char *metric;			/* "vllm:generation_tokens_total" */
	char *host;			/* "" when none */
	char *labels;			/* JSON object text, "{}" when none */
	uint64_t samples;		/* scrapes in the window */
	uint64_t resets;		/* times the value fell (a restart) */
	double increase;		/* NAN with fewer than 2 samples */
	double last;
};

/* A Prometheus histogram (the _bucket series sharing a name and labels but le). */
struct gl_report_prom_histogram {
	char *metric;			/* the family, "vllm:time_to_first_token_seconds" */
	char *host;
	char *labels;			/* without le */
	bool cumulative;		/* buckets as last scraped (one scrape), not the increase */
	size_t buckets;			/* bucket series, +Inf included */
	double count;			/* observations: the +Inf bucket */
	double p50, p95, p99;		/* histogram_quantile; NAN when not defined */
};

/*
 * The inference section (sec_inference.c): requests and tokens of the
 * window from BitNet-rs records, vLLM logs and Prometheus scrapes.
 */
struct gl_report_inference {
	double requests, failed;	/* NAN: unknown */
	double failed_pct;		/* failed per 100 requests; NAN: unknown */
	const char *failed_from;	/* "counters", "access_lines" (static); NULL: failed unknown */
	/* where requests came from: "counters", "access_lines", "records" (BitNet-rs
	 * records, when no counter counts them), "mixed" (servers told by different
	 * sources); NULL: unknown. Never two sources of one server added. */
	const char *requests_from;
	/* per server (bitnet, vllm, other): requests and their source; from NULL: none */
	double server_requests[3];
	const char *server_from[3];
	struct gl_report_dist tokens_generated, tokens_per_second, ttft_ms, latency_ms,
		token_latency_ms;
	struct gl_report_prom_counter *counters;	/* by metric, host, labels */
	size_t n_counters;
	struct gl_report_prom_histogram *histograms;	/* by metric, host, labels */
	size_t n_histograms;
};

/* The section's results in rep; none (zero) when rep holds no inference state. The
 * result comes first in the state (a hand-made model's to fill). */
const struct gl_report_inference *gl_inference_result(const struct gl_report *rep);

#endif
