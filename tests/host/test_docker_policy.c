/* SPDX-License-Identifier: MIT */
/* broker/json.c and broker/docker_policy.c: what the Docker filter reads,
 * refuses and forwards (tests/host/docker.sh runs it for real). */
#include "docker_policy.h"
#include "json.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int parses(const char *text)
{
	struct json j;
	int r = json_parse(text, strlen(text), &j);
	if (r == 0)
		json_free(&j);
	return r == 0;
}

static void json_strict(void **state)
{
	(void)state;
	assert_true(parses("{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\ud83d\\ude00\"]}"));
	assert_false(parses("{\"a\":1,\"A\":2}"));    /* Go folds case */
	assert_false(parses("{\"Bind\\u017f\":[]}")); /* and U+017F to s */
	assert_false(parses("{\"\xc5\xbf\":1}"));     /* the same, raw */
	assert_false(parses("{\"a\":\"\\u0000\"}"));  /* NUL */
	assert_false(parses("{\"a\":\"\xff\"}"));     /* invalid UTF-8 */
	assert_false(parses("{\"a\":\"\xc0\xae\"}")); /* overlong */
	assert_false(parses("{\"a\":\"\\ud800\"}"));  /* lone surrogate */
	assert_false(parses("{\"a\":1} {\"a\":2}"));  /* trailing data */
	assert_false(parses("{\"a\":01}"));
	assert_false(parses("{\"a\":1,}"));
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_false(json_parse(deep, sizeof(deep), &(struct json){0}) == 0);
}

static void json_round_trip(void **state)
{
	(void)state;
	const char *in = " { \"a\" : [ 1 , \"q\\\"\\n\" ] , \"b\" : { } } ";
	struct json j;
	assert_int_equal(json_parse(in, strlen(in), &j), 0);
	assert_int_equal(json_set_str(&j, "B", "v"), 0); /* replaces "b", spelled B */
	char *out;
	size_t len;
	assert_int_equal(json_write(&j, &out, &len), 0);
	assert_string_equal(out, "{\"a\":[1,\"q\\\"\\u000a\"],\"B\":\"v\"}");
	free(out);
	json_free(&j);
}

static int route(const char *method, const char *target, struct docker_route *rt)
{
	char why[256];
	return docker_route(method, target, rt, why, sizeof(why));
}

static void routes(void **state)
{
	(void)state;
	struct docker_route rt;
	assert_int_equal(route("GET", "/_ping", &rt), 0);
	assert_int_equal(route("POST", "/v1.43/containers/create?name=x", &rt), 0);
	assert_int_equal(rt.kind, DR_CREATE);
	assert_string_equal(rt.prefix, "/v1.43");
	assert_string_equal(rt.query, "name=x");
	assert_int_equal(route("POST", "/v1.43/containers/abc/start", &rt), 0);
	assert_int_equal(rt.kind, DR_CONTAINER);
	assert_string_equal(rt.id, "abc");
	assert_string_equal(rt.rest, "/start");
	assert_int_equal(route("POST", "/containers/abc/attach?stream=1", &rt), 0);
	assert_int_equal(rt.kind, DR_CONTAINER_HIJACK);
	assert_int_equal(route("POST", "/exec/e1/start", &rt), 0);
	assert_int_equal(rt.kind, DR_EXEC_HIJACK);
	assert_int_equal(route("GET", "/containers/json?all=1", &rt), 0);
	assert_int_equal(rt.kind, DR_FILTERED);
	assert_int_equal(route("POST", "/images/create?fromImage=alpine&tag=3", &rt), 0);
	assert_int_equal(route("GET", "/images/ghcr.io/a/b:1/json", &rt), 0);

	assert_int_equal(route("POST", "/build", &rt), -EPERM);
	assert_int_equal(route("POST", "/images/alpine/tag", &rt), -EPERM);
	assert_int_equal(route("POST", "/images/create?fromSrc=-", &rt), -EPERM);
	assert_int_equal(route("POST", "/images/create?fromImage=a&from%53rc=-", &rt), -EPERM);
	assert_int_equal(route("POST", "/volumes/create", &rt), -EPERM);
	assert_int_equal(route("POST", "/containers/prune", &rt), -EPERM);
	assert_int_equal(route("POST", "/containers/abc/update", &rt), -EPERM);
	assert_int_equal(route("GET", "/containers/abc/attach/ws", &rt), -EPERM);
	assert_int_equal(route("POST", "/v1.23/containers/abc/start", &rt), -EPERM);
	assert_int_equal(route("GET", "/containers/%2e%2e/json", &rt), -EPERM);
	assert_int_equal(route("GET", "/containers/../json", &rt), -EPERM);
	assert_int_equal(route("GET", "//_ping", &rt), -EPERM);
	assert_int_equal(route("GET", "/containers/json?a=b;c", &rt), -EPERM);
}

/* Paths as they are: the test's "host" has no links. */
static char *same(const char *path, void *ud)
{
	(void)ud;
	if (strncmp(path, "/ws/link", 8) == 0) /* a link in the workspace to /etc */
		return strdup("/etc");
	return strdup(path);
}

static const char *const roots[] = {"/ws", "/data/rw"};
static const struct docker_policy pol = {roots, 2, "S1", same, NULL};

static int create(const char *body, char **out)
{
	char why[512], *summary = NULL, *o = NULL;
	size_t len;
	int r = docker_check_create(&pol, body, strlen(body), &o, &len, &summary, why, sizeof(why));
	free(summary);
	if (out)
		*out = o;
	else
		free(o);
	return r;
}

static void create_checks(void **state)
{
	(void)state;
	char *out;
	assert_int_equal(create("{\"Image\":\"alpine\",\"Labels\":{\"agentsandbox.session\":\"x\"},"
	                        "\"HostConfig\":{\"Binds\":[\"/ws/a:/a:ro\"],\"Privileged\":false,"
	                        "\"MaskedPaths\":null,\"RestartPolicy\":{\"Name\":\"no\"}}}",
	                        &out),
	                 0);
	assert_non_null(strstr(out, "\"agentsandbox.session\":\"S1\""));
	assert_non_null(strstr(out, "\"/ws/a:/a:ro\""));
	free(out);
	assert_int_equal(
	    create("{\"Image\":\"a\",\"labels\":{\"AGENTSANDBOX.SESSION\":\"x\"}}", &out), 0);
	assert_non_null(strstr(out, "\"agentsandbox.session\":\"S1\""));
	free(out);
	assert_int_equal(create("{\"Image\":\"a\",\"HostConfig\":{\"Mounts\":[{\"Type\":\"tmpfs\","
	                        "\"Target\":\"/t\"},{\"Type\":\"bind\",\"Source\":\"/data/rw/x\","
	                        "\"Target\":\"/x\"}]}}",
	                        NULL),
	                 0);

	static const char *const refused[] = {
	    "{\"HostConfig\":{\"Privileged\":true}}",
	    "{\"HostConfig\":{\"privileged\":true}}",
	    "{\"Privileged\":true}",
	    "{\"Binds\":[\"/:/h\"]}",
	    "{\"HostConfig\":{\"Binds\":[\"/ws/link/x:/e\"]}}",
	    "{\"HostConfig\":{\"Binds\":[\"/wsx:/e\"]}}",
	    "{\"HostConfig\":{\"Binds\":[\"/ws/../etc:/e\"]}}",
	    "{\"HostConfig\":{\"Binds\":[\"vol:/e\"]}}",
	    "{\"HostConfig\":{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/etc\"}]}}",
	    "{\"HostConfig\":{\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"v\"}]}}",
	    ("{\"HostConfig\":{\"Mounts\":[{\"Type\":\"volume\",\"VolumeOptions\":"
	     "{\"DriverConfig\":{\"Name\":\"local\"}}}]}}"),
	    "{\"HostConfig\":{\"Mounts\":[{\"Type\":\"npipe\",\"Source\":\"x\"}]}}",
	    "{\"HostConfig\":{\"NetworkMode\":\"host\"}}",
	    "{\"HostConfig\":{\"NetworkMode\":\"container:x\"}}",
	    "{\"HostConfig\":{\"PidMode\":\"host\"}}",
	    "{\"HostConfig\":{\"IpcMode\":\"host\"}}",
	    "{\"HostConfig\":{\"UTSMode\":\"host\"}}",
	    "{\"HostConfig\":{\"UsernsMode\":\"host\"}}",
	    "{\"HostConfig\":{\"CgroupnsMode\":\"host\"}}",
	    "{\"HostConfig\":{\"CapAdd\":[\"NET_ADMIN\"]}}",
	    "{\"HostConfig\":{\"Devices\":[{\"PathOnHost\":\"/dev/sda\"}]}}",
	    "{\"HostConfig\":{\"DeviceRequests\":[{}]}}",
	    "{\"HostConfig\":{\"DeviceCgroupRules\":[\"a *:* rwm\"]}}",
	    "{\"HostConfig\":{\"SecurityOpt\":[\"apparmor=unconfined\"]}}",
	    "{\"HostConfig\":{\"MaskedPaths\":[]}}",
	    "{\"HostConfig\":{\"Runtime\":\"runsc-debug\"}}",
	    "{\"HostConfig\":{\"CgroupParent\":\"/\"}}",
	    "{\"HostConfig\":{\"VolumesFrom\":[\"x\"]}}",
	    "{\"HostConfig\":{\"Links\":[\"x:y\"]}}",
	    "{\"HostConfig\":{\"RestartPolicy\":{\"Name\":\"unless-stopped\"}}}",
	    "{\"HostConfig\":{\"Unknown\":1}}",
	    "{\"Unknown\":1}",
	    "{\"NetworkingConfig\":{\"EndpointsConfig\":{\"host\":{}}}}",
	    "{\"Labels\":[]}",
	    "[]",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int r = create(refused[i], NULL);
		if (r != -EPERM)
			fail_msg("allowed: %s", refused[i]);
	}
}

static void exec_checks(void **state)
{
	(void)state;
	char why[256], *out;
	size_t len;
	const char *ok = "{\"Cmd\":[\"ls\"],\"Detach\":false,\"Privileged\":false}";
	assert_int_equal(docker_check_exec(ok, strlen(ok), &out, &len, why, sizeof(why)), 0);
	free(out);
	const char *priv = "{\"Cmd\":[\"ls\"],\"privileged\":true}";
	assert_int_equal(docker_check_exec(priv, strlen(priv), &out, &len, why, sizeof(why)),
	                 -EPERM);
	const char *other = "{\"Cmd\":[\"ls\"],\"Mystery\":1}";
	assert_int_equal(docker_check_exec(other, strlen(other), &out, &len, why, sizeof(why)),
	                 -EPERM);
}

static void listings(void **state)
{
	(void)state;
	char *q;
	assert_int_equal(docker_filter_query("all=1", "S1", &q), 0);
	assert_string_equal(q, "all=1&filters=%7B%22label%22%3A%7B%22agentsandbox.session%3DS1%22%"
	                       "3Atrue%7D%7D");
	free(q);
	/* the client's own filters stay, the label is added to them */
	assert_int_equal(
	    docker_filter_query("filters=%7B%22label%22%3A%5B%22a%3Db%22%5D%7D", "S1", &q), 0);
	assert_string_equal(q, "filters=%7B%22label%22%3A%5B%22a%3Db%22%2C%22agentsandbox.session%"
	                       "3DS1%22%5D%7D");
	free(q);
	assert_int_equal(docker_filter_query("filters=%7B%7D&filter%73=%7B%7D", "S1", &q), -EINVAL);
	assert_int_equal(docker_filter_query("filters=nojson", "S1", &q), -EINVAL);
}

static void ownership(void **state)
{
	(void)state;
	char id[129];
	const char *mine =
	    "{\"Id\":\"abc123\",\"Config\":{\"Labels\":{\"agentsandbox.session\":\"S1\"}}}";
	const char *other =
	    "{\"Id\":\"abc123\",\"Config\":{\"Labels\":{\"agentsandbox.session\":\"S2\"}}}";
	const char *none = "{\"Id\":\"abc123\",\"Config\":{\"Labels\":null}}";
	assert_int_equal(docker_owned(mine, strlen(mine), "S1", id, sizeof(id)), 0);
	assert_string_equal(id, "abc123");
	assert_int_equal(docker_owned(other, strlen(other), "S1", id, sizeof(id)), -EPERM);
	assert_int_equal(docker_owned(none, strlen(none), "S1", id, sizeof(id)), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(json_strict), cmocka_unit_test(json_round_trip),
	    cmocka_unit_test(routes),      cmocka_unit_test(create_checks),
	    cmocka_unit_test(exec_checks), cmocka_unit_test(listings),
	    cmocka_unit_test(ownership),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
