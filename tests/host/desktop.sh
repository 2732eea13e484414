#!/usr/bin/env bash
# plugins/desktop: each flag binds exactly its sockets into an empty
# /run/user/UID (or /tmp/.X11-unix) and nothing else of the host's runtime
# directory, asserted from inside: X11 against a real Xvfb, Wayland and
# audio against listening test sockets, notifications through a real
# xdg-dbus-proxy to a test notification service on a private session bus
# (other names unreachable), the X11 clipboard both ways with xclip.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
cd "$TEST_TMP" || exit 1
UID_=$(id -u)
export XDG_RUNTIME_DIR="$TEST_TMP/rt"
mkdir -p ws "$XDG_RUNTIME_DIR/keyring" && chmod 700 "$XDG_RUNTIME_DIR"
echo secret >"$XDG_RUNTIME_DIR/keyring/control"
python3 "$SRC_ROOT/tests/host/sockets.py" sockets.ready "$XDG_RUNTIME_DIR/wayland-test" \
    "$XDG_RUNTIME_DIR/pulse/native" "$XDG_RUNTIME_DIR/pipewire-0" "$XDG_RUNTIME_DIR/other.sock" &
at_exit "kill $!"
for _ in $(seq 50); do [ -s sockets.ready ] && break; sleep 0.1; done
cat >d.cfg <<CFG
sandbox: { name = "desktop"; command = "bash"; packages = [ "/usr/bin/python3" ]; };
network: { enabled = false; };
CFG
cd ws || exit 1
unset DISPLAY WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS PULSE_SERVER XAUTHORITY
inside() { asb -c "$TEST_TMP/d.cfg" "$@"; }
RT=/run/user/$UID_
greet='python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode().strip())"'
listing="find $RT /tmp/.X11-unix -mindepth 1 2>/dev/null | sort | tr '\n' ' '"

# --- Wayland (a test socket) --------------------------------------------------
export WAYLAND_DISPLAY=wayland-test
out=$(inside --allow-gui -- -c "$listing; echo \$WAYLAND_DISPLAY \$XDG_RUNTIME_DIR; $greet \$XDG_RUNTIME_DIR/\$WAYLAND_DISPLAY")
ok $([ "$out" = "$RT/wayland-test wayland-test $RT
hello wayland-test" ]; echo $?) "gui (wayland): the socket and nothing else of the runtime directory ($out)"
unset WAYLAND_DISPLAY
check_fails "gui: without a display --allow-gui is refused" -- inside --allow-gui -- -c true

# --- audio (test sockets) ---------------------------------------------------------
out=$(inside --allow-audio -- -c "$listing; echo \$PULSE_SERVER; $greet $RT/pulse/native; $greet $RT/pipewire-0")
ok $([ "$out" = "$RT/pipewire-0 $RT/pulse $RT/pulse/native unix:$RT/pulse/native
hello native
hello pipewire-0" ]; echo $?) "audio: the PulseAudio and PipeWire sockets and nothing else ($out)"
out=$(inside -- -c "$listing; echo \${XDG_RUNTIME_DIR:-unset} \${PULSE_SERVER:-unset}")
ok $([ "$out" = "unset unset" ]; echo $?) "audio, gui: nothing of it without the flags ($out)"
check_fails "audio: unix sockets stay denied without a flag" -- inside -- -c "$greet $XDG_RUNTIME_DIR/other.sock"
show=$(inside --allow-audio --show-config 2>&1)
ok $(grep -q "unix_sockets.*allowed \[desktop\]" <<<"$show" && grep -q "desktop.*mount.*$RT/pulse/native: read-only, from $XDG_RUNTIME_DIR/pulse/native" <<<"$show"; echo $?) \
    "audio: --show-config names the socket and the lifted group"

# --- X11 (Xvfb) -------------------------------------------------------------------
if command -v Xvfb >/dev/null && command -v xdpyinfo >/dev/null; then
    for n in $(seq 90 140); do [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ] || break; done
    Xvfb :$n -nolisten tcp -screen 0 320x240x24 >Xvfb.log 2>&1 &
    at_exit "kill $!"
    for _ in $(seq 100); do [ -S /tmp/.X11-unix/X$n ] && break; sleep 0.1; done
    export DISPLAY=:$n
    sed -i 's|"/usr/bin/python3"|"/usr/bin/python3", "xdpyinfo", "xclip?"|' "$TEST_TMP/d.cfg"
    out=$(inside --allow-gui -- -c "$listing; echo \$DISPLAY; xdpyinfo | grep -c 'name of display'" 2>"$TEST_TMP/err")
    ok $([ "$out" = "/tmp/.X11-unix/X$n :$n
1" ]; echo $?) "gui (x11): xdpyinfo inside Xvfb, only X$n in /tmp/.X11-unix, no /run/user ($out)"
    ok $(grep -q "every X11 client can read and inject input" "$TEST_TMP/err"; echo $?) "gui (x11): the warning names the risk"
    check_fails "gui (x11): no display without the flag" -- inside -- -c 'xdpyinfo'
    if command -v xclip >/dev/null; then
        printf host-copied | xclip -selection clipboard -i -loops 1
        out=$(inside --allow-clipboard -- -c 'xclip -selection clipboard -o' 2>/dev/null)
        ok $([ "$out" = host-copied ]; echo $?) "clipboard (x11): what the host copied is pasted inside ($out)"
        # The sandbox says when it holds the selection (a launch under the
        # full suite's load can take seconds), then holds it for 10 s; the
        # host asks for up to ~4 s from then.
        rm -f copied
        inside --allow-clipboard -- -c 'printf from-sandbox | xclip -selection clipboard -i && : >copied; sleep 10' 2>/dev/null &
        copier=$!
        while [ ! -e copied ] && kill -0 $copier 2>/dev/null; do sleep 0.1; done
        got=
        for _ in $(seq 40); do
            [ -e copied ] || break
            got=$(timeout 2 xclip -selection clipboard -o 2>/dev/null) && [ "$got" = from-sandbox ] && break
            sleep 0.1
        done
        wait $copier
        rm -f copied
        ok $([ "$got" = from-sandbox ]; echo $?) "clipboard (x11): what the sandbox copied is pasted on the host ($got)"
        check_fails "clipboard: no xclip without the flag" -- inside -- -c 'xclip -o'
    else
        skip "clipboard: xclip is not installed"
    fi
    unset DISPLAY
else
    skip "gui (x11): Xvfb or xdpyinfo is not installed"
fi

# --- notifications (a private session bus) --------------------------------------
if command -v dbus-daemon >/dev/null && command -v notify-send >/dev/null &&
    command -v xdg-dbus-proxy >/dev/null && /usr/bin/python3 -c 'import dbus, gi' 2>/dev/null; then
    dbus-daemon --session --nofork --nopidfile --address="unix:path=$XDG_RUNTIME_DIR/bus" >dbus.log 2>&1 &
    at_exit "kill $!"
    for _ in $(seq 50); do [ -S "$XDG_RUNTIME_DIR/bus" ] && break; sleep 0.1; done
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
    /usr/bin/python3 "$SRC_ROOT/tests/host/notify_service.py" "$TEST_TMP/notes" "$TEST_TMP/notify.ready" &
    at_exit "kill $!"
    for _ in $(seq 100); do [ -s "$TEST_TMP/notify.ready" ] && break; sleep 0.1; done
    sed -i 's|packages = \[|packages = [ "dbus-send",|' "$TEST_TMP/d.cfg"
    inside --allow-notifications -- -c 'notify-send "agent finished"' 2>"$TEST_TMP/err"
    ok $(grep -qx "agent finished" "$TEST_TMP/notes"; echo $?) "notifications: notify-send inside reaches the test service ($(cat "$TEST_TMP/err"))"
    check "notifications: the host reaches org.example.Secret (control)" -- \
        dbus-send --session --print-reply --dest=org.example.Secret /x org.example.Secret.Ping
    check_fails "notifications: org.example.Secret is unreachable from inside" -- inside --allow-notifications -- -c \
        'dbus-send --session --print-reply --dest=org.example.Secret /x org.example.Secret.Ping'
    out=$(inside --allow-notifications -- -c 'dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames' 2>&1)
    ok $([[ $out != *org.example.Secret* && $out == *org.freedesktop.Notifications* ]]; echo $?) \
        "notifications: the bus shows the notification service and hides the other name"
    out=$(inside --allow-notifications -- -c "$listing; echo \$DBUS_SESSION_BUS_ADDRESS")
    ok $([ "$out" = "$RT/dbus-proxy $RT/dbus-proxy/bus unix:path=$RT/dbus-proxy/bus" ]; echo $?) "notifications: only the proxy's socket is there ($out)"
    check_fails "notifications: the real bus socket is not there" -- inside --allow-notifications -- -c "test -e $XDG_RUNTIME_DIR/bus"
    ok $(grep -q "xdg-dbus-proxy (pid [0-9]*) in front of unix:path=$XDG_RUNTIME_DIR/bus" "$(sessions | tail -1)/launch.log"; echo $?) \
        "notifications: launch.log names the proxy"
    ok $([ -z "$(pgrep -f "xdg-dbus-proxy unix:path=$XDG_RUNTIME_DIR/bus")" ]; echo $?) "notifications: no proxy is left"
else
    skip "notifications: dbus-daemon, notify-send, xdg-dbus-proxy or python3-dbus/gi is not installed"
fi

# --- truecolor: COLORTERM (and TERM) pass through, with or without a flag --------
out=$(COLORTERM=truecolor TERM=xterm-256color inside -- -c 'echo "$COLORTERM $TERM"')
ok $([ "$out" = "truecolor xterm-256color" ]; echo $?) "desktop: COLORTERM and TERM pass through ($out)"
out=$(env -u COLORTERM "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/d.cfg" -- -c 'echo "${COLORTERM-unset}"')
ok $([ "$out" = unset ]; echo $?) "desktop: and stay unset when the terminal sets none ($out)"

done_testing
