/* SPDX-License-Identifier: MIT */
/* The JSON writer: layout, every escape, UTF-8 validation, errors latch. */
#include "../json.h"

#include <errno.h>
#include <stdbool.h>

#include "check.h"

static const char *render(struct json *j, int *err)
{
	const char *out = NULL;
	*err = json_finish(j, &out, NULL);
	return out;
}

int main(void)
{
	struct json j;
	int err;

	json_init(&j);
	json_object_begin(&j, NULL);
	json_string(&j, "a", "x");
	json_array_begin(&j, "l");
	json_int(&j, NULL, -3);
	json_uint(&j, NULL, UINT64_MAX);
	json_bool(&j, NULL, true);
	json_array_end(&j);
	json_object_begin(&j, "empty");
	json_object_end(&j);
	json_object_end(&j);
	const char *out = render(&j, &err);
	CHECK(err == 0 &&
	          strcmp(out, "{\n  \"a\": \"x\",\n  \"l\": [\n    -3,\n    "
	                      "18446744073709551615,\n    true\n  ],\n  \"empty\": {}\n}\n") == 0,
	      "objects, arrays, numbers, booleans, an empty object");
	json_free(&j);

	json_init(&j);
	json_string(&j, NULL,
	            "q\" b\\ n\n r\r t\t bs\b ff\f c\x01 del\x7f \xc3\xa9 \xe2\x82\xac "
	            "\xf0\x9f\x98\x80 /");
	out = render(&j, &err);
	CHECK(err == 0 &&
	          strcmp(out, "\"q\\\" b\\\\ n\\n r\\r t\\t bs\\b ff\\f c\\u0001 del\\u007f "
	                      "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 /\"\n") == 0,
	      "quotes, backslashes, control characters escaped; UTF-8 kept");
	json_free(&j);

	json_init(&j);
	json_string2(&j, "k\"ey", "KEY=", "va\"lue");
	CHECK(strstr(j.buf, "\"k\\\"ey\": \"KEY=va\\\"lue\"") != NULL,
	      "keys are escaped too; two-part strings join");
	json_free(&j);

	static const char *const bad[] = {"\xff",
	                                  "\xc3",
	                                  "\xc0\xaf" /* overlong "/" */,
	                                  "\xe0\x80\xaf",
	                                  "\xed\xa0\x80" /* surrogate */,
	                                  "\xf4\x90\x80\x80" /* > U+10FFFF */,
	                                  "ok\x80"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_init(&j);
		json_array_begin(&j, NULL);
		json_string(&j, NULL, bad[i]);
		json_string(&j, NULL, "after");
		json_array_end(&j);
		out = render(&j, &err);
		CHECK(err == -EILSEQ && out == NULL, "invalid UTF-8 #%zu latches -EILSEQ", i);
		json_free(&j);
	}

	json_init(&j);
	json_object_begin(&j, NULL);
	out = render(&j, &err);
	CHECK(err == -EINVAL, "an unclosed object is an error");
	json_free(&j);

	json_init(&j);
	for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
		json_array_begin(&j, NULL);
	out = render(&j, &err);
	CHECK(err == -E2BIG, "too deep is an error");
	json_free(&j);

	json_init(&j);
	json_string(&j, NULL, NULL);
	out = render(&j, &err);
	CHECK(err == -EINVAL, "a NULL string is an error");
	json_free(&j);
	return check_done();
}
