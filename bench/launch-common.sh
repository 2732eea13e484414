# Sourced by the bench scripts that time `/bin/true` launches against the
# raw bubblewrap yardstick of bench/interleave.sh: a workspace, home and
# state directory of their own under $WORK (made by the caller, removed by
# its trap), the launch's config for a network mode, and the yardstick.

# cd into $WORK/ws, with HOME and XDG_STATE_HOME under $WORK.
bench_workspace() {
    mkdir -p "$WORK/ws" "$WORK/home"
    cd "$WORK/ws"
    export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
}

# bench_config MODE FILE: a /bin/true launch with the network off,
# filtered or open.
bench_config() {
    local net
    case $1 in
    off) net='network: { enabled = false; };' ;;
    filtered) net='network: { allowed_domains = ( "example.com" ); };' ;;
    open) net='' ;;
    *) echo "mode: off, filtered or open" >&2; exit 2 ;;
    esac
    printf 'sandbox: { name = "bench"; command = "/bin/true"; };\n%s\n' "$net" >"$2"
}

# The yardstick: every namespace, /usr, /etc, /proc, /dev, a tmpfs home and
# the workspace bound, /bin/true (after bench_workspace).
bench_raw() {
    echo "bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin" \
        "--symlink usr/lib /lib --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc" \
        "--dev /dev --tmpfs $HOME --bind $WORK/ws $WORK/ws --chdir $WORK/ws /bin/true"
}
