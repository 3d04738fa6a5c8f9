// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_send.c - the C side of bench/send.sh: the same reply as
 * tests/test_compose.c with its body grown to 2 KB, composed N times
 * with rb_compose(), or composed beforehand and sent by a sender. Prints
 * "SECONDS SIZE": the time of the timed phase (composing all, or sending
 * all) and the size of one message.
 *
 * usage: bench_send compose N
 *        bench_send smtp N URL
 *        bench_send maildir N DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail/compose.h"
#include "mail/sender.h"
#include "mail/sender_maildir.h"
#include "mail/sender_smtp.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/log.h"
#include "util/banned.h"

static const char *const to[] = {
	"\"Lorenzo Stoakes (Oracle)\" <ljs@kernel.org>"
};
static const char *const cc[] = { "Andrew Morton <akpm@linux-foundation.org>",
				  "linux-mm@kvack.org" };
static const char *const refs[] = { "<cover.1700000000.git.ljs@kernel.org>",
				    "<patch-4.ljs@kernel.org>" };

int main(int argc, char **argv)
{
	struct rb_buf body = RB_BUF_INIT(1 << 20), msg = RB_BUF_INIT(1 << 20);
	const char *rcpts[] = { "ljs@kernel.org", "akpm@linux-foundation.org",
				"linux-mm@kvack.org" };
	struct rb_reply r = {
		.from = "reviewbot <reviewbot@example.org>",
		.to = to,
		.n_to = 1,
		.cc = cc,
		.n_cc = 2,
		.subject =
			"[PATCH v2 4/9] mm/huge_memory: handle buggy PMD entry in zap_huge_pmd()",
		.in_reply_to = "<patch-4.ljs@kernel.org>",
		.references = refs,
		.n_references = 2,
		.date = 1700000000,
		.policy = RB_MODE_ADVISORY,
		.series_id = "v2-zap-huge-pmd"
	};
	struct rb_sender *s = NULL;
	long i, n;
	size_t head, *len;
	char **all;
	struct timespec t0, t1;

	if (argc < 3 || (strcmp(argv[1], "compose") && argc < 4)) {
		fprintf(stderr, "usage: bench_send compose|smtp|maildir N "
				"[URL|DIR]\n");
		return 2;
	}
	n = atol(argv[2]);
	rb_log_set_quiet(1);
	for (i = 0; i < 30; i++)
		rb_buf_puts(
			&body,
			"[F1] (medium) Returning true here tells the caller that the\n");
	head = body.len;
	if (!strcmp(argv[1], "smtp")) {
		struct rb_smtp_opts o = RB_SMTP_OPTS_INIT;
		o.url = argv[3];
		o.starttls = RB_STARTTLS_OFF;
		if (rb_sender_smtp_new(&s, &o))
			return 2;
	} else if (!strcmp(argv[1], "maildir")) {
		if (rb_sender_maildir_new(&s, argv[3]))
			return 2;
	}
	all = calloc((size_t)n, sizeof(*all));
	len = calloc((size_t)n, sizeof(*len));
	/* Timed: composing all (compose), or sending all (the others). */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		rb_buf_truncate(&body, head);
		rb_buf_printf(&body, "Reply %ld.\n", i);
		r.body = body.ptr;
		rb_buf_reset(&msg);
		if (rb_compose(&msg, NULL, &r)) {
			fprintf(stderr, "compose: %s\n", rb_errmsg());
			return 1;
		}
		if (s)
			all[i] = rb_buf_detach(&msg, &len[i]);
	}
	if (s) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < n; i++)
			if (rb_sender_send(s, "reviewbot@example.org", rcpts, 3,
					   all[i], len[i])) {
				fprintf(stderr, "send: %s\n", rb_errmsg());
				return 1;
			}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %zu\n",
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       s ? len[0] : msg.len);
	rb_sender_free(s);
	for (i = 0; s && i < n; i++)
		free(all[i]);
	free(all);
	free(len);
	rb_buf_release(&body);
	rb_buf_release(&msg);
	return 0;
}
