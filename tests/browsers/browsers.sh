#!/usr/bin/env bash
# plugins/browsers with real browsers and drivers in the real sandbox, as
# root and as a user: a page served inside on localhost, opened by Chromium
# through chromedriver (python3-selenium) and by Firefox through Marionette;
# the title through the driver, a screenshot that is a real render; each
# browser's own sandbox from inside (chrome://sandbox, Firefox's sandbox
# report, the renderers' seccomp filters and namespaces); the filtered mode
# (an allowed HTTPS origin with a valid chain through the proxy, a denied
# one failing, proxy.log); a published port seen by a browser on the host;
# the refusals; --show-config; the seatbelt notes.
#
# Browsers are slow on small machines: each launch runs one driver script
# that does everything for its browser, with generous timeouts.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no /usr/bin/python3 (the drivers' scripts run with it)"
HERE="$SRC_ROOT/tests/browsers"
# The plugin's profile directories, beside the session directories.
profile_dirs() { ls -d "$XDG_STATE_HOME"/agentsandbox/.browsers-* 2>/dev/null; }

chromium=
if command -v chromium >/dev/null && command -v chromedriver >/dev/null &&
    "$PY" -c 'import selenium' 2>/dev/null; then
    chromium=1
fi
firefox=$(command -v firefox-esr || command -v firefox || true)
firefox=${firefox##*/}
[ -n "$chromium$firefox" ] ||
    skip_all "no browser installed (apt-get install chromium chromium-driver python3-selenium firefox-esr)"
[ -n "$chromium" ] || diag "no chromium, chromedriver or python3-selenium: the Chromium checks skip"
[ -n "$firefox" ] || diag "no firefox-esr or firefox: the Firefox checks skip"
root=
[ "$(id -u)" -eq 0 ] && root=1
diag_lines() { local l; while IFS= read -r l; do diag "$l"; done <<<"$1"; }

WS="$TEST_TMP/ws"
mkdir -p "$WS"
cp "$HERE/page.html" "$HERE/drive_chromium.py" "$HERE/drive_firefox.py" "$WS/"
cd "$WS" || exit 1
# A file in the host's home: nothing inside may show it.
printf '<title>host secret 4f1c</title>host secret 4f1c\n' >"$HOME/secret.html"

engines=()
[ -n "$chromium" ] && engines+=(chromium)
[ -n "$firefox" ] && engines+=(firefox)
packages='"/usr/bin/python3"'
[ -n "$chromium" ] && packages+=', "chromium", "chromedriver"'
[ -n "$firefox" ] && packages+=", \"$firefox\""
list() { local IFS=,; printf '"%s"' "$*" | sed 's/,/", "/g'; }

# cfg NAME ENGINES NETWORK-KEYS [PLUGIN-KEYS]
cfg() {
    printf 'sandbox: { name = "%s"; command = "bash"; packages = [ %s ]; };\nnetwork: { %s };\nplugins: { browsers: { engines = [ %s ]; %s }; };\n' \
        "$1" "$packages" "$3" "$2" "${4:-}" >"$TEST_TMP/$1.cfg"
}
all=$(list "${engines[@]}")
cfg off "$all" 'enabled = false; unix_sockets = true;'
# As root Chromium's sandbox cannot run (see the refusal below): allowed
# explicitly, and then checked to be off.
opt=()
[ -n "$root" ] && [ -n "$chromium" ] && opt=(--browsers-allow-no-sandbox)
run() { timeout 300 "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" "$@"; }
# The page, served inside on the sandbox's own loopback.
serve='python3 -m http.server --bind 127.0.0.1 8000 >/dev/null 2>&1 &
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/8000) 2>/dev/null && break; sleep 0.1; done'
field() { awk -v k="$2" -v f="$3" '$1 == k && $2 == f { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' <<<"$1"; }
# every_renderer OUT KIND KEY VALUE: each process of that kind has it.
every() {
    local lines
    lines=$(awk -v k="$2" -v f="$3" '$1 == k && $3 == f { print $4 }' <<<"$1")
    [ -n "$lines" ] && ! grep -qvx -- "$4" <<<"$lines"
}
png_ok() { # FILE VIEWPORT-LINE
    local w h dpr
    read -r _ w h dpr <<<"$2"
    "$PY" "$HERE/pngcheck.py" "$1" "$("$PY" -c "print(round($w * $dpr))")" \
        "$("$PY" -c "print(round($h * $dpr))")"
}

# --- the refusals and what the plugin declares ------------------------------------
cfg bad '"chromium", "opera"' 'enabled = false; unix_sockets = true;'
out=$(run -c "$TEST_TMP/bad.cfg" -- -c 'echo ran' 2>&1)
ok $([ $? -eq 125 ] && grep -q "bad.cfg:[0-9]*.*unknown engine \"opera\"" <<<"$out"; echo $?) \
    "an unknown engine is a config error with file:line"
if [ -n "$chromium" ]; then
    cfg nounix '"chromium"' 'enabled = false;'
    out=$(run -c "$TEST_TMP/nounix.cfg" "${opt[@]}" -- -c 'echo ran' 2>&1)
    ok $([ $? -eq 125 ] && grep -q "network.unix_sockets = true" <<<"$out" && ! grep -q ran <<<"$out"; echo $?) \
        "chromium without unix sockets is refused, naming the setting"
    printf 'sandbox: { name = "nopkg"; command = "bash"; };\nnetwork: { enabled = false; unix_sockets = true; };\nplugins: { browsers: { engines = [ "chromium" ]; }; };\n' >"$TEST_TMP/nopkg.cfg"
    out=$(run -c "$TEST_TMP/nopkg.cfg" "${opt[@]}" -- -c 'echo ran' 2>&1)
    ok $([ $? -eq 125 ] && grep -q "no Chromium or Google Chrome among sandbox.packages (this host has .*chromium)" <<<"$out"; echo $?) \
        "an engine whose browser is not declared is refused, naming what to declare"
    cfg chr '"chromium"' 'enabled = false; unix_sockets = true;'
    out=$(run -c "$TEST_TMP/chr.cfg" -- -c 'echo ran' 2>&1)
    code=$?
    if [ -n "$root" ]; then
        ok $([ $code -eq 125 ] && grep -q "chromium's own sandbox cannot run here: .*uid 0.*allow_no_sandbox" <<<"$out"; echo $?) \
            "as root, chromium is refused (its sandbox cannot run), naming allow_no_sandbox"
    else
        ok $([ $code -eq 0 ] && [ "$out" = ran ]; echo $?) "as a user, chromium with unix sockets launches"
    fi
fi
if [ -n "$firefox" ]; then
    # Firefox needs no unix sockets: seqpacket socket pairs are lifted, the
    # rest of the unix-socket filter stays.
    cfg ff '"firefox"' 'enabled = false;'
    out=$(run -c "$TEST_TMP/ff.cfg" -- -c "python3 -c '
import socket
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET); print(\"pair ok\")
try: socket.socket(socket.AF_UNIX)
except OSError as e: print(\"socket\", e.errno)
'" 2>&1)
    ok $(grep -qx "pair ok" <<<"$out" && grep -qx "socket 1" <<<"$out"; echo $?) \
        "firefox without unix sockets: seqpacket pairs work, AF_UNIX sockets stay denied"
    out=$(AGENTSANDBOX_BROWSERS=firefox run -c "$TEST_TMP/ff.cfg" --show-config 2>&1)
    ok $(grep -q "^browsers.engines = firefox" <<<"$out"; echo $?) "AGENTSANDBOX_BROWSERS=firefox selects the engine"
    printf 'sandbox: { name = "flag"; command = "bash"; packages = [ "%s" ]; };\nnetwork: { enabled = false; };\n' "$firefox" >"$TEST_TMP/flag.cfg"
    out=$(run -c "$TEST_TMP/flag.cfg" --browsers firefox --show-config 2>&1)
    ok $(grep -q "^browsers.engines = firefox" <<<"$out" && grep -q "^browsers  *0" <<<"$out"; echo $?) \
        "--browsers firefox loads the plugin without a config group"
fi

# --show-config lists every mount, variable and seccomp lift it made.
out=$(run -c "$TEST_TMP/off.cfg" "${opt[@]}" --show-config 2>&1)
ok $? "--show-config runs"
for want in "^browsers.mount = /dev/shm: a private tmpfs" "^browsers.mount = /var/cache/fontconfig: read-only" \
    "^browsers.seccomp = unix_pairs lifted" "^seccomp.unix_pairs *allowed" "^seccomp.setns *denied" \
    "^seccomp.namespaces *denied" "^seccomp.mount *denied"; do
    ok $(grep -q -- "$want" <<<"$out"; echo $?) "--show-config: $want"
done
ok $(tr -d '\\\n' <<<"$out" | grep -q -- "--perms 01777  *--tmpfs /dev/shm"; echo $?) "the backend gets /dev/shm as a 1777 tmpfs"
if [ -n "$chromium" ]; then
    ok $(grep -q "^browsers.env = CHROME_BIN=/run/agentsandbox/bin/chromium" <<<"$out" &&
        grep -q "^browsers.env = CHROME_FLAGS=.*--disable-background-networking" <<<"$out" &&
        grep -q "^browsers.mount = /etc/chromium.d: read-only" <<<"$out"; echo $?) \
        "--show-config: CHROME_BIN, CHROME_FLAGS and /etc/chromium.d"
    ok $(! grep -q -- "--ignore-certificate-errors" <<<"$out"; echo $?) "never --ignore-certificate-errors"
    if [ -n "$root" ]; then
        ok $(grep -q "^browsers.chromium.sandbox = off, allowed by allow_no_sandbox" <<<"$out" &&
            grep -q "^browsers.env = CHROME_FLAGS=.*--no-sandbox" <<<"$out"; echo $?) \
            "as root with allow_no_sandbox: shown off, --no-sandbox in CHROME_FLAGS"
    else
        ok $(grep -q "^browsers.chromium.sandbox = on" <<<"$out" && ! grep -q "CHROME_FLAGS=.*--no-sandbox" <<<"$out"; echo $?) \
            "as a user: chromium's sandbox is on, no --no-sandbox in CHROME_FLAGS"
    fi
fi
if [ -n "$firefox" ]; then
    ok $(grep -q "^browsers.env = FIREFOX_BIN=/run/agentsandbox/bin/$firefox" <<<"$out" &&
        grep -q "^browsers.env = FIREFOX_PROFILE=$HOME/.mozilla/firefox/agentsandbox" <<<"$out" &&
        grep -q "^browsers.mount = $HOME/.mozilla/firefox: read-write, from $XDG_STATE_HOME/agentsandbox/.browsers-" <<<"$out"; echo $?) \
        "--show-config: FIREFOX_BIN, FIREFOX_PROFILE and the profile's mount"
fi
if [ -z "$root" ]; then
    ok $(grep -q "^browsers.seccomp = userns lifted" <<<"$out" && grep -q "^browsers.seccomp = chroot lifted" <<<"$out" &&
        grep -q "^seccomp.userns *allowed \[browsers\]" <<<"$out" && grep -q "^seccomp.chroot *allowed \[browsers\]" <<<"$out" &&
        ! grep -q -- "--disable-userns" <<<"$out"; echo $?) \
        "as a user: userns and chroot lifted by browsers, shown, no --disable-userns"
else
    ok $(grep -q "^seccomp.userns *denied" <<<"$out" && grep -q "^seccomp.chroot *denied" <<<"$out"; echo $?) \
        "as root: no browser sandbox can use user namespaces, so none are lifted"
fi
ok $([ -z "$(profile_dirs)" ]; echo $?) "--show-config leaves no profile directory behind"

# --- the seatbelt backend (macOS): refused without allow_no_sandbox; the notes --------
cfg mac "$all" 'allowed_domains = ( "example.com" ); unix_sockets = true; host_ports = [ 9515 ]; published_ports = ( 9515 );'
out=$(run -c "$TEST_TMP/mac.cfg" --backend seatbelt --show-config 2>&1)
ok $([ $? -eq 125 ] && grep -q "on macOS a browser's sandbox cannot be entered .*allow_no_sandbox" <<<"$out"; echo $?) \
    "seatbelt: refused unless allow_no_sandbox"
out=$(run -c "$TEST_TMP/mac.cfg" --backend seatbelt --browsers-allow-no-sandbox --show-config 2>&1)
ok $? "seatbelt with allow_no_sandbox: --show-config runs (the network hook does not ask to hold the sandbox)"
for want in "^browsers.macos.own_sandboxes = off on macOS" "^browsers.macos.driver_ports = localhost is the host's" \
    "^browsers.macos.proxy_capability = manual, httpProxy and sslProxy = 127.0.0.1:" \
    "^browsers.macos.accept_insecure_certs = true"; do
    ok $(grep -q "$want" <<<"$out"; echo $?) "seatbelt notes: $want"
done
if [ -n "$chromium" ]; then
    ok $(grep -q "^browsers.env = CHROME_FLAGS=.*--remote-debugging-pipe --no-sandbox" <<<"$out" &&
        ! grep -q "driver_ports_missing = .*9515" <<<"$out"; echo $?) \
        "seatbelt: --no-sandbox --remote-debugging-pipe; chromedriver's pinned port is listed"
fi
if [ -n "$firefox" ]; then
    ok $(grep -q "^browsers.env = MOZ_DISABLE_CONTENT_SANDBOX=1" <<<"$out" &&
        grep -q "driver_ports_missing = .*4444 (host_ports, published_ports)" <<<"$out"; echo $?) \
        "seatbelt: MOZ_DISABLE_*_SANDBOX set, geckodriver's unlisted ports named"
fi
cfg macopen "$all" 'unix_sockets = true;'
out=$(run -c "$TEST_TMP/macopen.cfg" --backend seatbelt --browsers-allow-no-sandbox --show-config 2>&1)
ok $(grep -q "^browsers.macos.accept_insecure_certs = false" <<<"$out" &&
    grep -q "^browsers.macos.proxy_capability = none" <<<"$out"; echo $?) \
    "seatbelt without allowed_domains: no proxy capability, no acceptInsecureCerts"

# --- Chromium through chromedriver -------------------------------------------------
secret_url="file://$HOME/secret.html"
if [ -n "$chromium" ]; then
    cfg chr '"chromium"' 'enabled = false; unix_sockets = true;'
    out=$(run -c "$TEST_TMP/chr.cfg" "${opt[@]}" -- -c "$serve
        mkdir -p out-chr && python3 drive_chromium.py out-chr http://127.0.0.1:8000/page.html $secret_url" 2>&1)
    diag_lines "$(grep -v '^renderer' <<<"$out" | head -30)"
    ok $([ "$(field "$out" title http://127.0.0.1:8000/page.html)" = "asb browser test" ]; echo $?) \
        "chromium: the page served inside on localhost has its title (through chromedriver)"
    res=$(png_ok out-chr/chromium.png "$(grep '^viewport' <<<"$out")" 2>&1)
    ok $? "chromium: the screenshot is a real render ($res)"
    ok $(! grep -q "host secret" <<<"$(field "$out" title "$secret_url")"; echo $?) \
        "chromium: a file of the host's home is not there ($(field "$out" title "$secret_url"))"
    if [ -n "$root" ]; then
        ok $(grep -q "^sandbox You are NOT adequately sandboxed" <<<"$out"; echo $?) \
            "as root with allow_no_sandbox: chrome://sandbox says it is off"
    else
        ok $(grep -q "^sandbox You are adequately sandboxed" <<<"$out" &&
            grep -q "^sandbox Layer 1 Sandbox Namespace" <<<"$out" &&
            grep -q "^sandbox PID namespaces Yes" <<<"$out" && grep -q "^sandbox Network namespaces Yes" <<<"$out" &&
            grep -q "^sandbox Seccomp-BPF sandbox Yes" <<<"$out"; echo $?) \
            "chromium: chrome://sandbox reports its namespace and seccomp-bpf sandboxes on"
        ok $(every "$out" renderer extra_filters 1 && every "$out" renderer same_user False &&
            every "$out" renderer same_pid False && every "$out" renderer same_net False; echo $?) \
            "chromium: every renderer has its own seccomp filter and user, pid and network namespaces"
        ok $(every "$out" renderer root_entries "unreadable:3" || every "$out" renderer root_entries 0; echo $?) \
            "chromium: a renderer's root is an empty directory ($(awk '$3 == "root_entries" { print $4; exit }' <<<"$out"))"
    fi
fi

# --- Firefox through Marionette ----------------------------------------------------
if [ -n "$firefox" ]; then
    out=$(run -c "$TEST_TMP/ff.cfg" -- -c "$serve
        mkdir -p out-ff && python3 drive_firefox.py out-ff http://127.0.0.1:8000/page.html $secret_url" 2>&1)
    diag_lines "$(grep -v '^content' <<<"$out" | head -30)"
    ok $([ "$(field "$out" title http://127.0.0.1:8000/page.html)" = "asb browser test" ]; echo $?) \
        "firefox: the page served inside on localhost has its title (through Marionette)"
    res=$(png_ok out-ff/firefox.png "$(grep '^viewport' <<<"$out")" 2>&1)
    ok $? "firefox: the screenshot is a real render ($res)"
    ok $(! grep -q "host secret" <<<"$(field "$out" title "$secret_url")"; echo $?) \
        "firefox: a file of the host's home is not there"
    ok $([ "$(field "$out" sandbox hasSeccompBPF)" = true ] && [ "$(field "$out" sandbox effectiveContentSandboxLevel)" -ge 4 ] &&
        every "$out" content extra_filters 1; echo $?) \
        "firefox: its content sandbox is on (seccomp-bpf, level $(field "$out" sandbox effectiveContentSandboxLevel), a filter of its own in every content process)"
    if [ -n "$root" ]; then
        ok $([ "$(field "$out" sandbox hasUserNamespaces)" = false ]; echo $?) \
            "as root: firefox goes without user namespaces (and the launch said so)"
    else
        ok $([ "$(field "$out" sandbox hasUserNamespaces)" = true ] && every "$out" content same_user False &&
            every "$out" content same_net False; echo $?) \
            "firefox: its content processes have their own user and network namespaces"
    fi
fi
ok $([ -z "$(profile_dirs)" ]; echo $?) "the profile directories are gone after the launches"

# --- the filtered network: the proxy, the session CA in the NSS databases ------------
if command -v openssl >/dev/null && make_test_pki app.test denied.test; then
    "$PY" "$HERE/origin.py" "$TEST_TMP/origin.port" srv.pem srv.key 2>"$TEST_TMP/origin.log" &
    at_exit "kill $! 2>/dev/null"
    for _ in $(seq 100); do [ -s "$TEST_TMP/origin.port" ] && break; sleep 0.1; done
    SP=$(cat "$TEST_TMP/origin.port" 2>/dev/null)
    printf '127.0.0.1 app.test denied.test\n' >"$TEST_TMP/hosts"
    net="allowed_domains = ( { domain = \"app.test\"; ports = [ $SP ]; allow_private = true; } );
      hosts_file = \"$TEST_TMP/hosts\"; upstream_ca_file = \"$WS/upca.pem\"; unix_sockets = true;"
    cfg filtered "$all" "$net"
    show=$(run -c "$TEST_TMP/filtered.cfg" "${opt[@]}" --show-config 2>&1)
    if [ -n "$chromium" ]; then
        ok $(grep -q "^browsers.mount = $HOME/.pki/nssdb: read-write, from $XDG_STATE_HOME/agentsandbox/.browsers-.*/nssdb" <<<"$show"; echo $?) \
            "filtered --show-config: Chromium's NSS database and where it comes from"
    fi
    if [ -n "$firefox" ]; then
        ok $(grep -q "^browsers.mount = $HOME/.mozilla/firefox: .*the proxy, the session CA" <<<"$show"; echo $?) \
            "filtered --show-config: Firefox's profile with the proxy and the session CA"
    fi
    script=
    urls="https://app.test:$SP/ https://denied.test:$SP/ http://127.0.0.1:8000/page.html"
    [ -n "$chromium" ] && script+="python3 drive_chromium.py out-fc $urls;"
    [ -n "$firefox" ] && script+="python3 drive_firefox.py out-ff2 $urls;"
    out=$(run -c "$TEST_TMP/filtered.cfg" "${opt[@]}" -- -c "$serve
        mkdir -p out-fc out-ff2; $script" 2>&1)
    diag_lines "$(grep '^title' <<<"$out")"
    log="$(sessions | tail -1)/proxy.log"
    titles=$(grep "^title https://app.test" <<<"$out")
    ok $([ "$(wc -l <<<"$titles")" -eq "${#engines[@]}" ] && ! grep -qv "asb https origin$" <<<"$titles"; echo $?) \
        "filtered: every browser reaches the allowed HTTPS origin through the proxy with a valid chain"
    denied=$(grep "^title https://denied.test" <<<"$out")
    ok $([ -n "$denied" ] && ! grep -q "asb https origin" <<<"$denied"; echo $?) "filtered: the denied origin fails"
    ok $(grep -q "allowed: GET app.test:$SP/" "$log" && grep -q "blocked: CONNECT denied.test:$SP (domain not allowed)" "$log"; echo $?) \
        "filtered: proxy.log shows both"
    ok $([ "$(grep -c "^title http://127.0.0.1:8000/page.html asb browser test$" <<<"$out")" -eq "${#engines[@]}" ] &&
        ! grep -q "127.0.0.1:8000" "$log"; echo $?) \
        "filtered: the app served inside on localhost is reached directly, not through the proxy"
    ok $(grep -q "the session CA is trusted in the NSS database" "$(sessions | tail -1)/launch.log"; echo $?) \
        "filtered: launch.log records the NSS databases"
else
    skip "filtered: openssl could not make the test certificates"
fi

# --- a published port: a browser on the host sees the agent's dev server -------------
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cfg pub "$all" "enabled = false; unix_sockets = true; published_ports = ( $port );"
rm -f "$WS/go"
run -c "$TEST_TMP/pub.cfg" "${opt[@]}" -- -c "python3 -m http.server --bind 127.0.0.1 $port >/dev/null 2>&1 &
    for _ in \$(seq 600); do [ -e go ] && break; sleep 0.1; done" >/dev/null 2>&1 &
launcher=$!
got=
for _ in $(seq 100); do
    got=$(curl -s -m 5 "http://127.0.0.1:$port/page.html" 2>/dev/null) && [ -n "$got" ] && break
    sleep 0.2
done
if [ -n "$chromium" ]; then
    nosb=()
    [ -n "$root" ] && nosb=(--no-sandbox) # the host's browser, outside any sandbox of ours
    got=$(timeout 120 chromium --headless "${nosb[@]}" --disable-background-networking --no-first-run \
        --user-data-dir="$TEST_TMP/host-profile" --dump-dom "http://127.0.0.1:$port/page.html" 2>/dev/null)
fi
touch "$WS/go"
wait $launcher
ok $(grep -q "<title>asb browser test</title>" <<<"$got"; echo $?) \
    "published port: a browser on the host sees the agent's dev server"

# A killed launch's profile directory goes at the next launch.
if [ -n "$firefox" ]; then
    stale="$XDG_STATE_HOME/agentsandbox/.browsers-stale1"
    mkdir -p "$stale/firefox" && touch "$stale/.lock" && touch -d '-5 minutes' "$stale"
    run -c "$TEST_TMP/ff.cfg" -- -c true >/dev/null 2>&1
    ok $([ ! -e "$stale" ] && [ -z "$(profile_dirs)" ]; echo $?) "a killed launch's profile directory is removed by the next"
fi
done_testing
