#!/usr/bin/env bash
# plugins/docker: the Docker Engine API filter, against a Docker API double
# (tests/host/docker_double.py: no dockerd can run where these tests run,
# inside a container without the privileges a daemon needs). A client
# inside the real sandbox (curl on the socket, and the docker CLI where the
# host has one) is refused privileged containers, host namespaces, devices,
# added capabilities, binds outside the workspace (~, /, a link out of
# it), the host's other containers, builds and tags; it may create, start,
# attach to and exec in a plain container. The double's record shows what
# reached the "daemon" (never a refused request), the session's label on
# what was created, bind sources resolved, and the session's containers
# removed when it ended.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
for t in python3 curl; do
    command -v $t >/dev/null || skip_all "$t is not installed"
done
cd "$TEST_TMP" || exit 1
mkdir -p ws dd "$HOME"
WS=$TEST_TMP/ws
REC=$TEST_TMP/dd/record.jsonl
python3 "$SRC_ROOT/tests/host/docker_double.py" "$TEST_TMP/dd/docker.sock" "$REC" "$TEST_TMP/dd/ready" \
    2>"$TEST_TMP/dd/log" &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 50); do [ -e "$TEST_TMP/dd/ready" ] && break; sleep 0.1; done
[ -e "$TEST_TMP/dd/ready" ] || skip_all "the Docker API double did not start: $(tail -3 dd/log)"
touch "$REC"
export DOCKER_HOST=unix://$TEST_TMP/dd/docker.sock
diag "no real dockerd: the daemon is the Docker API double (tests/host/docker_double.py)"

cat >docker.cfg <<CFG
sandbox: { name = "docker"; command = "bash"; packages = [ "curl", "/usr/bin/python3" ]; };
network: { enabled = false; };
CFG
cd ws || exit 1
# The launch's warning (tested once, below) is left out of what a test reads.
inside() {
    asb -c "$TEST_TMP/docker.cfg" --allow-docker -- -c "$1" 2>"$TEST_TMP/stderr"
    local rc=$?
    grep -v "^agentsandbox: warning: docker: --allow-docker: " "$TEST_TMP/stderr" >&2
    return $rc
}
# api METHOD PATH [JSON]: the status and the answer, from inside.
API='api() { curl -s -o /tmp/answer -w "%{http_code}" --unix-socket /run/docker/docker.sock -X "$1" \
    -H "Content-Type: application/json" ${3:+--data-binary "$3"} "http://docker$2"; echo " $(cat /tmp/answer)"; }'
reached() { grep -c "$1" "$REC"; } # how many requests the double got that match
# What the double got, without the broker's own listing at the end of each
# session (it looks for the session's containers to remove).
requests() { grep -vc '"method": "GET", "path": "/containers/json", "raw": "/containers/json?all=1&filters=' "$REC"; }

# --- refused: the dangerous parts of a create -----------------------------------
refused() { # DESCRIPTION JSON-BODY [WHY]: a create from inside is refused, the double never sees it
    local before out
    before=$(requests)
    out=$(inside "$API; api POST /v1.43/containers/create '$2'" 2>&1)
    ok $([[ $out == 403*"agentsandbox: refused"*"${3:-}"* && $(requests) == "$before" ]]; echo $?) \
        "docker: $1 is refused and never reaches the daemon ($out)"
}
refused "a privileged container" '{"Image":"alpine","HostConfig":{"Privileged":true}}' "privileged"
refused "privileged spelled in lower case (the daemon reads keys case-insensitively)" \
    '{"Image":"alpine","HostConfig":{"privileged":true}}' "privileged"
refused "privileged at the top level (the daemon reads HostConfig keys there too)" \
    '{"Image":"alpine","Privileged":true}' "privileged"
refused "a key given twice" '{"Image":"alpine","HostConfig":{"Privileged":false,"PRIVILEGED":true}}'
refused "a key folding to Binds (U+017F)" \
    "{\"Image\":\"alpine\",\"HostConfig\":{\"Bind\\u017f\":[\"/:/host\"]}}" "does not read"
refused "the host's network" '{"Image":"alpine","HostConfig":{"NetworkMode":"host"}}' "NetworkMode host"
refused "the host's pid namespace" '{"Image":"alpine","HostConfig":{"PidMode":"host"}}' "pid namespace"
refused "another container's network" '{"Image":"alpine","HostConfig":{"NetworkMode":"container:hostbox"}}'
refused "the host's IPC" '{"Image":"alpine","HostConfig":{"IpcMode":"host"}}' "IpcMode"
refused "the host's user namespace" '{"Image":"alpine","HostConfig":{"UsernsMode":"host"}}'
refused "a device" '{"Image":"alpine","HostConfig":{"Devices":[{"PathOnHost":"/dev/sda","PathInContainer":"/dev/sda","CgroupPermissions":"rwm"}]}}' "devices"
refused "a GPU request" '{"Image":"alpine","HostConfig":{"DeviceRequests":[{"Count":-1,"Capabilities":[["gpu"]]}]}}'
refused "an added capability" '{"Image":"alpine","HostConfig":{"CapAdd":["SYS_ADMIN"]}}' "capabilities"
refused "seccomp=unconfined" '{"Image":"alpine","HostConfig":{"SecurityOpt":["seccomp=unconfined"]}}' "security option"
refused "an unmasked /proc" '{"Image":"alpine","HostConfig":{"MaskedPaths":[]}}' "masked paths"
refused "a restart policy" '{"Image":"alpine","HostConfig":{"RestartPolicy":{"Name":"always"}}}' "outlive"
refused "a HostConfig key the filter does not know" '{"Image":"alpine","HostConfig":{"NewThing":1}}' "does not know"
refused "a bind of ~" "{\"Image\":\"alpine\",\"HostConfig\":{\"Binds\":[\"$HOME:/h\"]}}" "outside the paths"
refused "a bind of /" '{"Image":"alpine","HostConfig":{"Binds":["/:/host"]}}' "outside the paths"
refused "a bind at the top level" '{"Image":"alpine","Binds":["/etc:/e"]}' "outside the paths"
refused "a bind mount of /etc" '{"Image":"alpine","HostConfig":{"Mounts":[{"Type":"bind","Source":"/etc","Target":"/e"}]}}' "outside the paths"
refused "a bind with .." "{\"Image\":\"alpine\",\"HostConfig\":{\"Binds\":[\"$WS/../..:/x\"]}}" ".."
refused "a named volume" '{"Image":"alpine","HostConfig":{"Binds":["hostdata:/d"]}}' "named volumes"
ln -sfn / "$WS/escape"
refused "a bind through a link in the workspace that leads out of it" \
    "{\"Image\":\"alpine\",\"HostConfig\":{\"Binds\":[\"$WS/escape/etc:/e\"]}}" "-> /etc"
ln -sfn "/nonexistent-$$/dir" "$WS/dangling"
refused "a bind through a dangling link" \
    "{\"Image\":\"alpine\",\"HostConfig\":{\"Binds\":[\"$WS/dangling/x:/e\"]}}" "cannot be resolved"

# --- refused: other routes ---------------------------------------------------------
before=$(requests)
out=$(inside "$API; api POST /v1.43/containers/hostbox/start; api POST /v1.43/containers/hostbox/exec '{\"Cmd\":[\"sh\"]}';
    api GET /v1.43/containers/hostbox/json; api DELETE /v1.43/containers/hostbox" 2>&1 | tr '\n' ' ')
ok $([[ $out == "403 "*"not one this session made"*"403 "*"403 "*"403 "* && $(reached '"method": "POST", "path": "/containers/hostbox') == 0 &&
    $(reached '"method": "DELETE"') == 0 ]]; echo $?) "docker: the host's own container: no start, exec, inspect or remove ($out)"
before=$(requests)
out=$(inside "$API; api POST '/v1.43/build?t=ubuntu'; api POST /v1.43/images/alpine/tag?repo=ubuntu; api POST '/v1.43/images/create?fromSrc=-';
    api POST /v1.43/volumes/create '{\"Name\":\"v\"}'; api POST /v1.20/containers/x/start; api POST /v1.43/containers/prune;
    api GET /v1.43/containers/%2e%2e/json; api POST /v1.43/swarm/init '{}'" 2>&1 | grep -c '^403 .*agentsandbox: refused')
ok $([ "$out" = 8 ] && [ "$(requests)" = "$before" ]; echo $?) \
    "docker: builds, tags, imports, volumes, old API versions, prune, escapes and swarm are refused ($out of 8), none reached the daemon"

# --- allowed: a plain container of the session's ---------------------------------
out=$(inside "$API; api GET /_ping; api POST '/v1.43/containers/create?name=mine' '{\"Image\":\"alpine\",\"Cmd\":[\"true\"],
    \"HostConfig\":{\"Binds\":[\"$WS:/w\",\"$WS/sub/new:/n:ro\"],\"Mounts\":[{\"Type\":\"tmpfs\",\"Target\":\"/t\"}]}}';
    api POST /v1.43/containers/mine/start; api POST /v1.43/containers/mine/wait
    api POST /v1.43/containers/mine/exec '{\"Cmd\":[\"id\"],\"Privileged\":true}'" 2>&1 | tr '\n' ' ')
ok $([[ $out == "200 OK 201 "*'"Id"'*"204 "*"200 "*StatusCode*"403 "*"privileged exec"* ]]; echo $?) \
    "docker: a plain container with binds of the workspace is created, started and waited for; a privileged exec is not ($out)"
SESSION=$(sed -n 's/.*containers labelled agentsandbox.session=\([0-9a-f-]*\).*/\1/p' "$(sessions | tail -1)/launch.log")
created=$(grep '"path": "/containers/create"' "$REC" | tail -1)
ok $([[ $created == *"\"agentsandbox.session\": \"$SESSION\""* ]]; echo $?) "docker: the daemon got the session's label on it"
ok $([[ $created == *"\"$WS:/w\""*"\"$WS/sub/new:/n:ro\""* ]]; echo $?) "docker: with the binds as asked, resolved ($created)"
ok $(grep -q '"method": "DELETE", "path": "/containers/[0-9a-f]*"' "$REC" &&
    grep -q "end of session: removed container" "$(sessions | tail -1)/docker.log"; echo $?) \
    "docker: the session's container was removed when it ended"
ok $([ "$(reached '"path": "/containers/hostbox"')" = 0 ] && [ "$(reached '"method": "DELETE", "path": "/containers/hostbox"')" = 0 ]; echo $?) \
    "docker: and the host's own was left alone"

# Attach, exec start: the connection becomes the container's stream.
out=$(inside "$API; api POST /v1.43/containers/create?name=talk '{\"Image\":\"alpine\",\"OpenStdin\":true}' >/dev/null
    printf 'POST /v1.43/containers/talk/attach?stream=1&stdin=1&stdout=1 HTTP/1.1\r\nHost: d\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n' >/tmp/req
    python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(\"/run/docker/docker.sock\")
s.sendall(open(\"/tmp/req\", \"rb\").read()); time.sleep(0.3); s.sendall(b\"ping-through\"); s.shutdown(socket.SHUT_WR)
out = b\"\"
while True:
    d = s.recv(65536)
    if not d: break
    out += d
print(out.split(b\"\\r\\n\")[0].decode(), b\"echo:ping-through\" in out)'" 2>&1)
ok $([[ $out == "HTTP/1.1 101 UPGRADED True" ]]; echo $?) "docker: attach is the container's stream both ways ($out)"
out=$(inside "$API; api POST /v1.43/containers/create?name=ex '{\"Image\":\"alpine\"}' >/dev/null
    id=\$(api POST /v1.43/containers/ex/exec '{\"Cmd\":[\"ls\"]}' | sed 's/.*\"Id\": *\"\\([0-9a-f]*\\)\".*/\\1/')
    api GET /v1.43/exec/\$id/json | cut -c1-4; curl -s --unix-socket /run/docker/docker.sock -X POST -H 'Content-Type: application/json' \
        -d '{\"Detach\":false}' http://d/v1.43/exec/\$id/start | tr -d '\\001\\000\\014'" 2>&1 | tr '\n' ' ')
ok $([[ $out == "200 "*exec-output* ]]; echo $?) "docker: exec in the session's container ($out)"

# Listings show the session's containers only.
out=$(inside "$API; api POST /v1.43/containers/create '{\"Image\":\"alpine\"}' >/dev/null; api GET /v1.43/containers/json?all=1" 2>&1)
ok $([[ $out == "200 "*agentsandbox.session* && $out != *hostbox* ]]; echo $?) "docker: a listing shows the session's containers, not the host's ($out)"
SESSION=$(sed -n 's/.*containers labelled agentsandbox.session=\([0-9a-f-]*\).*/\1/p' "$(sessions | tail -1)/launch.log")
ok $(grep '"path": "/containers/json"' "$REC" | tail -1 | grep -q "agentsandbox.session=$SESSION"; echo $?) \
    "docker: the filter added the session's label filter"

# --- the docker CLI inside, where the host has one -------------------------------------
if command -v docker >/dev/null; then
    out=$(inside "docker run --privileged alpine true" 2>&1)
    ok $([[ $out == *"agentsandbox: refused: privileged containers"* ]]; echo $?) "docker CLI: docker run --privileged is refused ($out)"
    out=$(inside "docker create -v \$HOME:/h alpine" 2>&1)
    ok $([[ $out == *"outside the paths the agent may write"* ]]; echo $?) "docker CLI: docker create -v ~:/h is refused ($out)"
    out=$(inside "docker run --rm -v $WS:/w alpine echo hi && docker exec hostbox true" 2>&1 | tr '\n' ' ')
    ok $([[ $out == "hello from the double "*"not one this session made"* ]]; echo $?) \
        "docker CLI: docker run -v WORKSPACE works, docker exec into the host's container does not ($out)"
else
    skip "docker CLI: the host has no docker command"
fi

# --- what the sandbox holds, and the records -----------------------------------------
out=$(inside 'echo $DOCKER_HOST $(ls -A /run/docker)')
ok $([ "$out" = "unix:///run/docker/docker.sock docker.sock" ]; echo $?) "docker: DOCKER_HOST and the broker's socket alone ($out)"
check_fails "docker: the daemon's own socket is not there" -- inside "test -e $TEST_TMP/dd/docker.sock"
check_fails "docker: the socket cannot be replaced" -- inside 'rm -f /run/docker/docker.sock'
out=$(asb -c "$TEST_TMP/docker.cfg" -- -c 'echo "${DOCKER_HOST:-unset}"; test -e /run/docker && echo there')
ok $([ "$out" = unset ]; echo $?) "docker: without --allow-docker nothing of it is there ($out)"
show=$(asb -c "$TEST_TMP/docker.cfg" --allow-docker --show-config 2>&1)
ok $(grep -q "docker.*daemon.*$TEST_TMP/dd/docker.sock (DOCKER_HOST) -> /run/docker/docker.sock" <<<"$show" &&
    grep -q "docker.*risk.*outside this sandbox" <<<"$show" && grep -q "docker.*binds.*$WS" <<<"$show"; echo $?) \
    "docker: --show-config names the daemon, the risk and the paths binds may name"
out=$(asb -c "$TEST_TMP/docker.cfg" --allow-docker -- -c true 2>&1)
ok $([[ $out == *"warning: docker: --allow-docker: the agent's containers run on the host's Docker daemon, outside this sandbox"* ]]; echo $?) \
    "docker: a launch warns of what stays open"
log=$(sessions | tail -1)
ok $(grep -q "docker broker (pid [0-9]*) at /run/docker/docker.sock" "$log/launch.log"; echo $?) "docker: launch.log names the broker"
ok $(cat "$XDG_STATE_HOME"/agentsandbox/*/docker.log | grep -q "refused: POST /v1.43/containers/create: privileged"; echo $?) \
    "docker: docker.log has each refusal"
check_fails "docker: a DOCKER_HOST that is no unix socket is refused" -- \
    env DOCKER_HOST=tcp://127.0.0.1:2375 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/docker.cfg" --allow-docker -- -c true
check_fails "docker: no daemon socket is a setup failure" -- \
    env DOCKER_HOST=unix://$TEST_TMP/none.sock "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/docker.cfg" --allow-docker -- -c true

# --- the broker dies with the launcher, and removes the session's containers first ------
brokers() { pgrep -f "agentsandbox-broker docker --upstream $TEST_TMP/dd/docker.sock" | tr '\n' ' '; }
ok $([ -z "$(brokers)" ]; echo $?) "docker: no broker is left after the launches ($(brokers))"
nap=28.$$
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/docker.cfg" --allow-docker -- -c \
    "curl -s --unix-socket /run/docker/docker.sock -H 'Content-Type: application/json' -d '{\"Image\":\"alpine\"}' http://d/containers/create?name=orphan >/dev/null; sleep $nap" &
launcher=$!
for _ in $(seq 100); do grep -q '"name": \["orphan"\]' "$REC" && break; sleep 0.1; done
kill -KILL $launcher
wait $launcher 2>/dev/null
for _ in $(seq 100); do [ -z "$(brokers)" ] && break; sleep 0.1; done
ok $([ -z "$(brokers)" ]; echo $?) "docker: SIGKILL of the launcher takes the broker with it ($(brokers))"
deleted_before=$(grep -c '"method": "DELETE"' "$REC")
ok $(curl -s --unix-socket "$TEST_TMP/dd/docker.sock" "http://d/containers/json?all=1" | grep -vq '"/orphan"'; echo $?) \
    "docker: and the broker removed the container it had made first ($deleted_before removals)"
for p in $(pgrep -x -f "sleep $nap"); do kill -KILL "$p" 2>/dev/null; done

done_testing
