// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dur.c - rb_dur_format() (util/dur.h) with the two tables the bot
 * uses: whole units for mail ("3 hours"), one decimal for the dashboard
 * ("1.5 h"); the edges between units, negative durations, and what
 * no caller passes but must not be undefined (NaN, infinity, 1e300).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/dur.h"
#include "util/banned.h"

/* As review_stage.c's mail_units and http.c's cell_units. */
static const struct rb_dur_unit whole[] = {
	{ 120, 1, -1, "seconds" },
	{ 120 * 60, 60, -1, "minutes" },
	{ 48 * 3600, 3600, -1, "hours" },
	{ 0, 86400, -1, "days" },
};

static const struct rb_dur_unit cell[] = {
	{ 90, 1, 0, "s" },
	{ 90 * 60, 60, 0, "min" },
	{ 48 * 3600, 3600, 1, "h" },
	{ 2 * 365 * 86400.0, 86400, 1, "days" },
	{ 0, 365.25 * 86400, 1, "years" },
};

static void expect(const struct rb_dur_unit *u, double secs, const char *want)
{
	char out[64];

	rb_dur_format(out, sizeof(out), secs, u);
	assert_string_equal(out, want);
}

static void test_whole(void **state)
{
	(void)state;
	expect(whole, 0, "0 seconds");
	expect(whole, 119, "119 seconds");
	expect(whole, 120, "2 minutes");
	expect(whole, 7199, "119 minutes");
	expect(whole, 7200, "2 hours");
	expect(whole, 48 * 3600 - 1, "47 hours");
	expect(whole, 48 * 3600, "2 days");
	expect(whole, -5, "0 seconds");
}

static void test_cell(void **state)
{
	(void)state;
	expect(cell, 89, "89 s");
	expect(cell, 90, "2 min");
	expect(cell, 5400, "1.5 h");
	expect(cell, 3 * 86400, "3.0 days");
	expect(cell, 3 * 365.25 * 86400, "3.0 years");
}

/* Past every unit, or not a number: the last unit, and defined. */
static void test_edges(void **state)
{
	char out[64];

	(void)state;
	rb_dur_format(out, sizeof(out), NAN, whole);
	assert_non_null(strstr(out, "nan days"));
	rb_dur_format(out, sizeof(out), INFINITY, whole);
	assert_string_equal(out, "inf days");
	rb_dur_format(out, sizeof(out), 1e300, whole);
	assert_true(out[0] != '\0');
	expect(whole, 1e9, "11574 days");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cell),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
