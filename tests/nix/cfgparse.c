/* SPDX-License-Identifier: MIT */
/*
 * cfgparse FILE [PATH...]: parse FILE with libconfig (the launcher's grammar)
 * and print each setting PATH ("network.host_ports") in a canonical one-line
 * form, so shell tests assert on the parsed structure, not on text.
 * Exit 1 with "FILE:LINE: error" when the file does not parse, 2 when a PATH
 * is missing.
 */
#include <libconfig.h>
#include <stdio.h>

static void print_setting(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		printf("%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		printf("%lld", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		printf("%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		printf("%s", config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		printf("\"%s\"", config_setting_get_string(s));
		break;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_GROUP: {
		int group = config_setting_type(s) == CONFIG_TYPE_GROUP;
		int n = config_setting_length(s);
		printf("%s", group ? "{" : "[");
		for (int i = 0; i < n; i++) {
			const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			if (i > 0)
				printf(" ");
			if (group)
				printf("%s=", config_setting_name(e));
			print_setting(e);
		}
		printf("%s", group ? "}" : "]");
		break;
	}
	default:
		printf("?");
	}
}

int main(int argc, char **argv)
{
	config_t cfg;
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: cfgparse FILE [PATH...]\n");
		return 2;
	}
	config_init(&cfg);
	if (!config_read_file(&cfg, argv[1])) {
		fprintf(stderr, "%s:%d: %s\n", argv[1], config_error_line(&cfg),
		        config_error_text(&cfg));
		config_destroy(&cfg);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		const config_setting_t *s = config_lookup(&cfg, argv[i]);
		if (s == NULL) {
			fprintf(stderr, "%s: no setting %s\n", argv[1], argv[i]);
			rc = 2;
			continue;
		}
		print_setting(s);
		printf("\n");
	}
	config_destroy(&cfg);
	return rc;
}
