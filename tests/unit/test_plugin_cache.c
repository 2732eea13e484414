/* SPDX-License-Identifier: MIT */
/* core/plugin_cache.c: records of plugins' descriptors, kept between
 * launches. */
#include "plugin_cache.h"
#include "util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const keys[] = {"allow", "path with space", NULL};
static const char *const no_keys[] = {NULL};
static const struct asb_option options[] = {
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_BOOL,
     .key = "allow",
     .flag = "allow-thing",
     .env = "ALLOW_THING",
     .help = "a help: with spaces,\nnewlines and 12:colons"},
    {.struct_size = sizeof(struct asb_option),
     .type = ASB_OPT_STRING,
     .key = "mode",
     .flag = "thing-mode",
     .negative = "no-thing-mode",
     .help = "",
     .values = "a b c"},
    {0},
};
static const struct asb_plugin plugin = {
    .magic = ASB_PLUGIN_MAGIC,
    .abi_major = ASB_ABI_MAJOR,
    .abi_minor = 1,
    .struct_size = sizeof(struct asb_plugin),
    .kind = ASB_KIND_FEATURE,
    .name = "thing",
    .version = "1.2",
    .description = "does things",
    .config_keys = keys,
    .options = options,
    .load = ASB_LOAD_IF_EXISTS,
    .load_path = "/nix/store",
};

static char dir[64];
static char file[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/asb-plugin-cache.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/.plugin-cache", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* A file as stat would show it, changed long enough ago. */
static struct stat settled(void)
{
	struct stat st = {0};
	st.st_dev = 65024;
	st.st_ino = 4242;
	st.st_size = 123456;
	st.st_mtim.tv_sec = 1700000000;
	st.st_mtim.tv_nsec = 1;
	st.st_ctim.tv_sec = 1700000001;
	st.st_ctim.tv_nsec = 999999999;
	return st;
}

static const time_t now = 1800000000;

/* Saved with one record of `d` for /p/thing.so, then loaded again. */
static struct plugin_cache *round_trip(const struct asb_plugin *d)
{
	struct plugin_cache *c = plugin_cache_load(file);
	assert_non_null(c);
	struct stat st = settled();
	assert_int_equal(plugin_cache_put(c, "/p/thing.so", &st, d, now), 0);
	assert_int_equal(plugin_cache_save(c, file), 0);
	plugin_cache_free(c);
	return plugin_cache_load(file);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct plugin_cache *c = round_trip(&plugin);
	struct stat st = settled();
	const struct asb_plugin *d = plugin_cache_find(c, "/p/thing.so", &st);
	assert_non_null(d);
	assert_true(plugin_cache_same(d, &plugin));
	assert_int_equal(d->magic, ASB_PLUGIN_MAGIC);
	assert_int_equal(d->kind, ASB_KIND_FEATURE);
	assert_int_equal(d->load, ASB_LOAD_IF_EXISTS);
	assert_string_equal(d->name, "thing");
	assert_string_equal(d->load_path, "/nix/store");
	assert_string_equal(d->config_keys[1], "path with space");
	assert_null(d->config_keys[2]);
	assert_string_equal(d->options[0].help, options[0].help);
	assert_null(d->options[0].negative);
	assert_null(d->options[0].values);
	assert_string_equal(d->options[1].values, "a b c");
	assert_string_equal(d->options[1].help, "");
	assert_null(d->options[2].key);
	assert_null(d->hooks);
	assert_null(d->init);
	assert_null(d->backend);
	/* Unchanged records are not written again. */
	struct stat before;
	assert_int_equal(stat(file, &before), 0);
	assert_int_equal(plugin_cache_save(c, file), 0);
	struct stat after;
	assert_int_equal(stat(file, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(before.st_mode & 0777, 0600);
	plugin_cache_free(c);
}

static void test_no_arrays(void **state)
{
	(void)state;
	struct asb_plugin bare = plugin;
	bare.config_keys = NULL;
	bare.options = NULL;
	bare.load_path = NULL;
	struct plugin_cache *c = round_trip(&bare);
	struct stat st = settled();
	const struct asb_plugin *d = plugin_cache_find(c, "/p/thing.so", &st);
	assert_non_null(d);
	assert_null(d->config_keys);
	assert_null(d->options);
	assert_null(d->load_path);
	assert_true(plugin_cache_same(d, &bare));
	/* No keys at all differs from an empty list of them. */
	struct asb_plugin empty_keys = bare;
	empty_keys.config_keys = no_keys;
	assert_false(plugin_cache_same(d, &empty_keys));
	plugin_cache_free(c);
}

static void test_other_file_misses(void **state)
{
	(void)state;
	struct plugin_cache *c = round_trip(&plugin);
	struct stat st = settled();
	assert_null(plugin_cache_find(c, "/p/other.so", &st));
	for (int field = 0; field < 7; field++) {
		st = settled();
		switch (field) {
		case 0:
			st.st_dev++;
			break;
		case 1:
			st.st_ino++;
			break;
		case 2:
			st.st_size--;
			break;
		case 3:
			st.st_mtim.tv_sec++;
			break;
		case 4:
			st.st_mtim.tv_nsec++;
			break;
		case 5:
			st.st_ctim.tv_sec++;
			break;
		case 6:
			st.st_ctim.tv_nsec--;
			break;
		}
		assert_null(plugin_cache_find(c, "/p/thing.so", &st));
	}
	plugin_cache_free(c);
}

static void test_recent_change_not_recorded(void **state)
{
	(void)state;
	struct plugin_cache *c = plugin_cache_load(file);
	struct stat st = settled();
	st.st_ctim.tv_sec = now - PLUGIN_CACHE_SETTLED_S;
	assert_int_equal(plugin_cache_put(c, "/p/thing.so", &st, &plugin, now), 0);
	assert_int_equal(plugin_cache_save(c, file), 0);
	plugin_cache_free(c);
	c = plugin_cache_load(file);
	assert_null(plugin_cache_find(c, "/p/thing.so", &st));
	plugin_cache_free(c);
}

static void test_differs(void **state)
{
	(void)state;
	struct asb_option changed[3];
	memcpy(changed, options, sizeof(options));
	changed[1].help = "other";
	struct asb_plugin other = plugin;
	other.options = changed;
	assert_true(plugin_cache_same(&plugin, &plugin));
	assert_false(plugin_cache_same(&plugin, &other));
	other = plugin;
	other.load = ASB_LOAD_DEFAULT;
	assert_false(plugin_cache_same(&plugin, &other));
}

/* Only the records found again are written back. */
static void test_unused_dropped(void **state)
{
	(void)state;
	struct plugin_cache *c = plugin_cache_load(file);
	struct stat st = settled();
	assert_int_equal(plugin_cache_put(c, "/p/thing.so", &st, &plugin, now), 0);
	assert_int_equal(plugin_cache_put(c, "/p/gone.so", &st, &plugin, now), 0);
	assert_int_equal(plugin_cache_save(c, file), 0);
	plugin_cache_free(c);
	c = plugin_cache_load(file);
	assert_non_null(plugin_cache_find(c, "/p/thing.so", &st));
	assert_int_equal(plugin_cache_save(c, file), 0);
	plugin_cache_free(c);
	c = plugin_cache_load(file);
	assert_non_null(plugin_cache_find(c, "/p/thing.so", &st));
	assert_null(plugin_cache_find(c, "/p/gone.so", &st));
	plugin_cache_free(c);
}

static char *file_text(size_t *len)
{
	char *text = NULL;
	assert_int_equal(read_file(file, &text, len), 0);
	return text;
}

static void write_text(const char *text, size_t len, mode_t mode)
{
	unlink(file);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static bool found(void)
{
	struct plugin_cache *c = plugin_cache_load(file);
	assert_non_null(c);
	struct stat st = settled();
	bool hit = plugin_cache_find(c, "/p/thing.so", &st) != NULL;
	plugin_cache_free(c);
	return hit;
}

/* A damaged file is used all or nothing: every cut and every changed
 * byte either loads the record as it was or nothing. */
static void test_damaged(void **state)
{
	(void)state;
	plugin_cache_free(round_trip(&plugin));
	size_t len;
	_cleanup_free_ char *good = file_text(&len);
	for (size_t cut = 0; cut < len; cut++) {
		write_text(good, cut, 0600);
		assert_false(found());
	}
	_cleanup_free_ char *bad = malloc(len);
	assert_non_null(bad);
	for (size_t i = 0; i < len; i++) {
		memcpy(bad, good, len);
		bad[i] = bad[i] == '\0' ? '1' : '\0';
		write_text(bad, len, 0600);
		assert_false(found());
		memcpy(bad, good, len);
		bad[i] = (char)(bad[i] ^ 0x5a);
		write_text(bad, len, 0600);
		struct plugin_cache *c = plugin_cache_load(file);
		plugin_cache_free(c); /* whatever it made of it, without a fault */
	}
	write_text(good, len, 0600);
	assert_true(found());
}

/* It decides which plugins load: only this user's, writable by no one
 * else, and not through a link. */
static void test_refused_files(void **state)
{
	(void)state;
	plugin_cache_free(round_trip(&plugin));
	size_t len;
	_cleanup_free_ char *good = file_text(&len);
	write_text(good, len, 0620);
	assert_false(found());
	write_text(good, len, 0602);
	assert_false(found());
	write_text(good, len, 0644);
	assert_true(found());
	char real[160];
	snprintf(real, sizeof(real), "%s/real", dir);
	assert_int_equal(rename(file, real), 0);
	assert_int_equal(symlink(real, file), 0);
	assert_false(found());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_arrays, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_file_misses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recent_change_not_recorded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_differs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unused_dropped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
