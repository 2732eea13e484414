#!/usr/bin/env bash
# A third-party plugin, built only against the installed header and
# agentsandbox-plugin.pc (in a temporary prefix), loads and runs its hooks.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
command -v pkg-config >/dev/null || skip_all "pkg-config is not installed"
DEST="$TEST_TMP/dest"
meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$DEST" >"$TEST_TMP/install.log" 2>&1
ok $? "meson install into a temporary prefix"
pc=$(find "$DEST" -name agentsandbox-plugin.pc | head -1)
ok $([ -n "$pc" ]; echo $?) "agentsandbox-plugin.pc is installed ($pc)"
prefix=$(pkg-config --variable=prefix "$pc")
export PKG_CONFIG_PATH=$(dirname "$pc")
# The .pc names the final prefix; point it at the staging copy.
cflags=$(pkg-config --define-variable=prefix="$DEST$prefix" --cflags agentsandbox-plugin)
plugindir=$(pkg-config --variable=plugindir agentsandbox-plugin)
ok $([ -n "$plugindir" ]; echo $?) "the .pc exports plugindir ($plugindir)"
ok $([ -f "$DEST$prefix/include/agentsandbox/plugin.h" ]; echo $?) "the header is installed"
# The .pc's ABI is the header's (what a plugin built against it declares).
hdr=$(sed -n 's/^#define ASB_ABI_\(MAJOR\|MINOR\) *\([0-9]*\)u$/\2/p' "$DEST$prefix/include/agentsandbox/plugin.h" | paste -sd.)
pc_abi="$(pkg-config --variable=abi_major agentsandbox-plugin).$(pkg-config --variable=abi_minor agentsandbox-plugin)"
ok $([ -n "$hdr" ] && [ "$pc_abi" = "$hdr" ] && [ "$(pkg-config --modversion agentsandbox-plugin)" = "$hdr" ]; echo $?) \
    "the .pc's ABI version is the header's ($pc_abi, $hdr)"

mkdir -p "$TEST_TMP/oot"
cat >"$TEST_TMP/oot/hello.c" <<'C'
#include <agentsandbox/plugin.h>
#include <stdlib.h>
#include <string.h>

struct hello {
	const char *greeting;
};

static int hello_init(const struct asb_host *host, struct asb_ctx *ctx, void **data)
{
	(void)host;
	(void)ctx;
	struct hello *h = calloc(1, sizeof(*h));
	if (!h)
		return -12;
	h->greeting = "hello from a third party";
	*data = h;
	return 0;
}

static void hello_fini(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)host;
	(void)ctx;
	free(data);
}

static int hello_configure(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	struct hello *h = data;
	return host->config_string(ctx, "greeting", &h->greeting) < 0 ? -22 : 0;
}

static int hello_env(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	const struct hello *h = data;
	return host->plan_setenv(ctx, "OOT_GREETING", h->greeting);
}

static int hello_pre_mount(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	struct asb_entry e = {.struct_size = sizeof(e), .type = ASB_ENTRY_FILE, .fd = -1,
	                      .dest = "/run/oot", .data = "mounted\n", .data_len = 8};
	return host->plan_entry(ctx, &e);
}

static int hello_describe(const struct asb_host *host, struct asb_ctx *ctx, void *data)
{
	(void)data;
	return host->describe(ctx, "says", "hello");
}

static const struct asb_hooks hooks = {
	.struct_size = sizeof(struct asb_hooks),
	.configure = hello_configure,
	.pre_mount = hello_pre_mount,
	.env = hello_env,
	.describe = hello_describe,
};
static const char *const keys[] = {"greeting", NULL};
static const struct asb_option options[] = {
	{.struct_size = sizeof(struct asb_option), .type = ASB_OPT_STRING, .key = "greeting",
	 .flag = "hello-greeting", .env = "HELLO_GREETING", .help = "what to say"},
	{0},
};
static const struct asb_plugin desc = {
	.magic = ASB_PLUGIN_MAGIC,
	.abi_major = ASB_ABI_MAJOR,
	.abi_minor = ASB_ABI_MINOR,
	.struct_size = sizeof(struct asb_plugin),
	.kind = ASB_KIND_FEATURE,
	.name = "hello",
	.version = "9.9",
	.description = "out-of-tree test plugin",
	.config_keys = keys,
	.options = options,
	.init = hello_init,
	.fini = hello_fini,
	.hooks = &hooks,
};
ASB_PLUGIN_DEFINE(desc)
C
cc -shared -fPIC -fvisibility=hidden -Wall -Werror $cflags -o "$TEST_TMP/oot/hello.so" "$TEST_TMP/oot/hello.c"
ok $? "the plugin compiles against the installed header alone"
exported=$(nm -D --defined-only "$TEST_TMP/oot/hello.so" | awk '$2 == "T" {print $3}')
ok $([ "$exported" = asb_plugin_entry ]; echo $?) "it exports exactly one function ($exported)"

mkdir -p "$TEST_TMP/ws" && cd "$TEST_TMP/ws" || exit 1
printf 'sandbox: { command = "bash"; };\nnetwork: { enabled = false; };\nplugins: { hello: { greeting = "hi there"; }; };\n' >"$TEST_TMP/h.cfg"
out=$("$ASB" --plugin-dir "$TEST_TMP/oot" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/h.cfg" -- -c 'echo "$OOT_GREETING"; cat /run/oot')
ok $([ "$out" = "hi there
mounted" ]; echo $?) "it loads and its hooks shape the sandbox"
out=$(AGENTSANDBOX_PLUGIN_PATH="$TEST_TMP/oot:$ASB_PLUGIN_DIR" "$ASB" -c "$TEST_TMP/h.cfg" --show-config)
ok $(grep -q "^hello.says = hello" <<<"$out"; echo $?) "AGENTSANDBOX_PLUGIN_PATH finds it; describe feeds --show-config"
ok $([ "$(pkg-config --variable=abi_major agentsandbox-plugin)" = 2 ]; echo $?) "the .pc carries the plugin ABI (2)"
# Its own flag and variable (the core knows no plugin names); the flag loads
# it without a config group.
printf 'sandbox: { command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/plain.cfg"
out=$("$ASB" --plugin-dir "$TEST_TMP/oot" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/plain.cfg" --hello-greeting "by flag" -- -c 'echo "$OOT_GREETING"')
ok $([ "$out" = "by flag" ]; echo $?) "its declared flag loads it and sets its option"
out=$(AGENTSANDBOX_HELLO_GREETING="by env" "$ASB" --plugin-dir "$TEST_TMP/oot" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/h.cfg" -- -c 'echo "$OOT_GREETING"')
ok $([ "$out" = "by env" ]; echo $?) "its declared variable beats the config file"
out=$("$ASB" --plugin-dir "$TEST_TMP/oot" --plugin-dir "$ASB_PLUGIN_DIR" --help)
ok $(grep -q -- "--hello-greeting VALUE *what to say (plugins.hello.greeting, AGENTSANDBOX_HELLO_GREETING)" <<<"$out"; echo $?) "--help lists the plugin's option"
done_testing
