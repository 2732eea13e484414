/* SPDX-License-Identifier: MIT */
/* core/termfilter.c: what passes to the user's terminal, what does not, in
 * every form a terminal accepts, split at every byte boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "termfilter.h"

/* Filter `in` whole, and again one byte at a time: both must agree. */
static char *run(uint32_t allow, const char *in, size_t len, struct termfilter *keep)
{
	struct termfilter f, g;
	termfilter_init(&f, allow);
	termfilter_init(&g, allow);
	unsigned char *a = malloc(termfilter_out_max(len) + 16);
	unsigned char *b = malloc(termfilter_out_max(len) + 16);
	size_t na = termfilter_feed(&f, (const unsigned char *)in, len, a);
	na += termfilter_finish(&f, a + na);
	size_t nb = 0;
	for (size_t i = 0; i < len; i++)
		nb += termfilter_feed(&g, (const unsigned char *)in + i, 1, b + nb);
	nb += termfilter_finish(&g, b + nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	a[na] = '\0';
	free(b);
	if (keep)
		*keep = f;
	return (char *)a;
}

#define SAME(allow, s)                                                                             \
	do {                                                                                       \
		char *_o = run(allow, s, sizeof(s) - 1, NULL);                                     \
		assert_string_equal(_o, s);                                                        \
		free(_o);                                                                          \
	} while (0)
#define BECOMES(allow, s, want)                                                                    \
	do {                                                                                       \
		char *_o = run(allow, s, sizeof(s) - 1, NULL);                                     \
		assert_string_equal(_o, want);                                                     \
		free(_o);                                                                          \
	} while (0)

static void test_text_and_screen_control_pass(void **state)
{
	(void)state;
	SAME(0, "plain text\r\n\ttab and bell\a");
	SAME(0, "UTF-8: \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc4\x9c \xc5\x9b");
	SAME(0, "\x1b[1;31mred\x1b[0m \x1b[2J\x1b[H\x1b[10;20H\x1b[K\x1b[?25l\x1b[?25h");
	SAME(0, "\x1b[38;2;1;2;3mtruecolor\x1b[38:5:9m\x1b[0m\x1b(0lqk\x1b(B\x1b"
	        "7\x1b"
	        "8\x1bM");
	SAME(0, "\x1b[?1049h\x1b[?1000;1006h\x1b[?2004h\x1b[?1049l");
	SAME(0, "\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b[?2026$p\x1b[>q\x1b[14t\x1b[18t");
	SAME(0, "\x1b]11;?\x1b\\\x1b]10;?\a\x1b]4;1;?\a"); /* colour queries */
	SAME(0, "\x1b]104\a");
}

static void test_dropped_by_default(void **state)
{
	(void)state;
	BECOMES(0, "a\x1b]52;c;ZWNobyBwd25lZA==\ab", "ab"); /* clipboard, BEL */
	BECOMES(0, "a\x1b]52;c;ZWNobw==\x1b\\b", "ab");     /* clipboard, ST */
	BECOMES(0,
	        "a\x9d"
	        "52;c;eA==\x9c"
	        "b",
	        "ab"); /* 8-bit C1 */
	BECOMES(0,
	        "a\xc2\x9d"
	        "52;c;eA==\xc2\x9c"
	        "b",
	        "ab");                                           /* C1 as UTF-8 */
	BECOMES(0, "a\x1b]0;rm -rf ~\ab\x1b]2;t\x1b\\c", "abc"); /* titles */
	BECOMES(0, "see \x1b]8;;https://evil/\x1b\\here\x1b]8;;\x1b\\.", "see here.");
	BECOMES(0, "\x1b]9;you won\a\x1b]777;notify;a;b\a\x1b]99;;x\a", "");
	BECOMES(0, "\x1b]7;file://h/etc\a\x1b]133;A\a\x1b]633;E;ls\a", "");
	BECOMES(0, "\x1b]1337;File=name=eA==;inline=0:AAAA\a\x1b]5113;x\a", "");
	BECOMES(0, "x\x1bP$qm\x1b\\y", "xy");                       /* DECRQSS */
	BECOMES(0, "x\x1bP+q544e\x1b\\y", "xy");                    /* XTGETTCAP */
	BECOMES(0, "x\x1bPtmux;\x1b\x1b]52;c;eA==\a\x1b\\y", "xy"); /* tmux passthrough */
	BECOMES(0, "x\x1bP0;1|17/ab\x1b\\y", "xy");                 /* DECUDK */
	BECOMES(0, "x\x1b_Gf=1;AAAA\x1b\\\x1b_other\x1b\\y", "xy"); /* APC */
	BECOMES(0, "x\x1b^pm\x1b\\\x1bXsos\x1b\\y", "xy");          /* PM, SOS */
	BECOMES(0, "x\x1b[21t\x1b[20t\x1b[8;1;1t\x1b[2t\x1b[5iy", "xy");
	BECOMES(0, "x\x1b[1;1;1;1;1*yy", "xy"); /* DECRQCRA */
	BECOMES(0, "x\x05y", "xy");             /* ENQ */
	BECOMES(0, "x\x1b]999;what\ay", "xy");  /* unknown OSC */
}

static void test_classes_let_through(void **state)
{
	(void)state;
	SAME(TF_TITLE, "\x1b]2;my title\a\x1b[22;0t\x1b[23;0t");
	SAME(TF_HYPERLINKS, "\x1b]8;;https://example.com/\x1b\\link\x1b]8;;\x1b\\");
	SAME(TF_CLIPBOARD, "\x1b]52;c;eA==\a");
	SAME(TF_GRAPHICS, "\x1bPq#0;2;0;0;0#0~~@@\x1b\\\x1b_Gf=24;AAAA\x1b\\");
	SAME(TF_WINDOW, "\x1b[8;24;80t");
	/* A title with a UTF-8 character whose last byte is 0x9c is not cut. */
	SAME(TF_TITLE, "\x1b]2;\xc4\x9c title\a");
	/* 8-bit forms come out as 7-bit ones. */
	BECOMES(TF_TITLE,
	        "\x9d"
	        "2;t\x9c",
	        "\x1b]2;t\x1b\\");
	BECOMES(0,
	        "\x9b"
	        "1m",
	        "\x1b[1m");
	/* Never, whatever is allowed. */
	BECOMES(0xff, "\x1b[21t\x1bP$qm\x1b\\\x1bPtmux;x\x1b\\\x05", "");
}

static void test_malformed(void **state)
{
	(void)state;
	BECOMES(0,
	        "a\x1b[1;2\x18"
	        "b",
	        "a\x18"
	        "b");                                       /* CAN cancels */
	BECOMES(0, "a\x1b]52;c;eA==\x1b[1mb", "a\x1b[1mb"); /* ESC ends a string */
	BECOMES(0, "a\x1b[1\x1b[2mb", "a\x1b[2mb");         /* ESC restarts */
	BECOMES(0, "a\x1b[1\nm", "a\n\x1b[1m");             /* C0 acts at once */
	BECOMES(0, "a\x1b[1$1mb", "ab");                    /* param after inter */
	char big[400];
	memset(big, '1', sizeof(big));
	memcpy(big, "\x1b[", 2);
	big[sizeof(big) - 2] = 'm';
	big[sizeof(big) - 1] = 'x';
	char *o = run(0, big, sizeof(big), NULL);
	assert_string_equal(o, "x"); /* too long: dropped */
	free(o);
	BECOMES(0, "a\x1b]52;unterminated", "a"); /* dropped at the end of the stream */
	BECOMES(0, "end\xc2", "end\xc2");
}

static void test_restore(void **state)
{
	(void)state;
	struct termfilter f;
	char buf[512];
	const char s1[] = "plain \x1b[1mbold\x1b[0m";
	free(run(0, s1, sizeof(s1) - 1, &f));
	assert_int_equal(termfilter_restore(&f, buf, sizeof(buf)), 0); /* nothing to undo */
	assert_false(f.queried);
	const char s2[] = "\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?25l\x1b[?1h\x1b="
	                  "\x1b[2;20r\x1b[>1u\x1b]11;rgb:0/0/0\a\x1b(0\x0e\x1b[6n";
	free(run(0, s2, sizeof(s2) - 1, &f));
	termfilter_restore(&f, buf, sizeof(buf));
	const char *want[] = {"\x1b[?1049l", "\x1b[?1000l", "\x1b[?1006l", "\x1b[?2004l",
	                      "\x1b[?25h",   "\x1b[?1l",    "\x1b>",       "\x1b[r",
	                      "\x1b[<1u",    "\x1b]111\a",  "\x1b(B",      "\x0f"};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		if (!strstr(buf, want[i]))
			fail_msg("restore lacks %s", want[i] + 1);
	assert_true(strstr(buf, "\x1b[?1049l") == buf); /* the alternate screen first */
	assert_true(f.queried);
	termfilter_reapply(&f, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\x1b[?1049h"));
	assert_non_null(strstr(buf, "\x1b[?1000h"));
	assert_non_null(strstr(buf, "\x1b[?25l"));
	/* Turned off again by the agent itself: nothing left to restore. */
	const char s3[] = "\x1b[?1049h\x1b[?2004h\x1b[?2004l\x1b[?1049l\x1b]11;?\a";
	free(run(0, s3, sizeof(s3) - 1, &f));
	assert_int_equal(termfilter_restore(&f, buf, sizeof(buf)), 0);
	/* A full reset (RIS) undoes everything. */
	const char s4[] = "\x1b[?1049h\x1b[?1000h\x1b"
	                  "c";
	free(run(0, s4, sizeof(s4) - 1, &f));
	assert_int_equal(termfilter_restore(&f, buf, sizeof(buf)), 0);
}

static void test_counts_and_names(void **state)
{
	(void)state;
	struct termfilter f;
	const char s[] = "\x1b]52;c;x\a\x1b]52;c;y\a\x1b]0;t\a\x1bP$qm\x1b\\";
	free(run(0, s, sizeof(s) - 1, &f));
	assert_int_equal(f.dropped[0], 2); /* clipboard */
	assert_int_equal(f.dropped[1], 1); /* title */
	assert_int_equal(f.dropped[TF_NCLASSES], 1);
	assert_int_equal(termfilter_class("hyperlinks"), TF_HYPERLINKS);
	assert_int_equal(termfilter_class("nope"), 0);
	assert_string_equal(termfilter_class_name(5), "files");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_and_screen_control_pass),
	    cmocka_unit_test(test_dropped_by_default),
	    cmocka_unit_test(test_classes_let_through),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_restore),
	    cmocka_unit_test(test_counts_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
