#!/usr/bin/env bash
# plugins/devices: --allow-kvm binds /dev/kvm and nothing else of /dev;
# --allow-gpu binds the render nodes and NVIDIA nodes this host has (none
# here: then nothing, with a warning), and with an NVIDIA GPU lifts AF_UNIX
# seqpacket sockets for CUDA. Absent without the flags.
. "$SRC_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
cd "$TEST_TMP" || exit 1
mkdir -p ws
cat >dev.cfg <<CFG
sandbox: { name = "devices"; command = "bash"; packages = [ "/usr/bin/python3" ]; };
network: { enabled = false; };
CFG
cd ws || exit 1
inside() { asb -c "$TEST_TMP/dev.cfg" "$@"; }
base=$(inside -- -c 'ls -A /dev | tr "\n" " "')
diag "/dev without flags: $base"

if [ -c /dev/kvm ]; then
    with=$(inside --allow-kvm -- -c 'ls -A /dev | tr "\n" " "')
    extra=$(comm -13 <(tr ' ' '\n' <<<"$base" | sort) <(tr ' ' '\n' <<<"$with" | sort) | tr '\n' ' ')
    ok $([ "$extra" = "kvm " ]; echo $?) "kvm: --allow-kvm adds /dev/kvm and nothing else ($extra)"
    check "kvm: it is the host's character device" -- inside --allow-kvm -- -c \
        "[ \"\$(stat -c %t:%T /dev/kvm)\" = \"$(stat -c %t:%T /dev/kvm)\" ] && test -c /dev/kvm"
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
        out=$(inside --allow-kvm -- -c 'python3 -c "import fcntl,os; print(fcntl.ioctl(os.open(\"/dev/kvm\", os.O_RDWR), 0xAE00))"' 2>&1)
        ok $([ "$out" = 12 ]; echo $?) "kvm: KVM_GET_API_VERSION from inside ($out)"
    else
        skip "kvm: $(id -un) may not open /dev/kvm here (its group is $(stat -c %G /dev/kvm))"
    fi
    check_fails "kvm: absent without the flag" -- inside -- -c 'test -e /dev/kvm'
    show=$(inside --allow-kvm --show-config 2>&1)
    ok $(grep -q "devices.*device.*/dev/kvm (KVM)" <<<"$show" && grep -q -- "--dev-bind /dev/kvm /dev/kvm" <<<"$show"; echo $?) \
        "kvm: --show-config names it, bwrap binds it"
    inside --allow-kvm -- -c true
    ok $(grep -q "devices: device: /dev/kvm" "$(sessions | tail -1)/launch.log"; echo $?) "kvm: launch.log names it"
else
    skip "kvm: this host has no /dev/kvm"
fi

if ls /dev/dri/renderD* >/dev/null 2>&1 || [ -e /dev/nvidiactl ]; then
    want=$( (ls /dev/dri/renderD* 2>/dev/null; ls -d /dev/nvidia* 2>/dev/null) | sort | tr '\n' ' ')
    got=$(inside --allow-gpu -- -c '(ls /dev/dri/renderD* 2>/dev/null; ls -d /dev/nvidia* 2>/dev/null) | sort | tr "\n" " "')
    ok $([ "$want" = "$got" ]; echo $?) "gpu: the host's render and NVIDIA nodes are there ($got)"
    check_fails "gpu: no card (modesetting) node" -- inside --allow-gpu -- -c 'ls /dev/dri/card*'
else
    out=$(inside --allow-gpu -- -c 'ls -A /dev | tr "\n" " "' 2>"$TEST_TMP/err")
    ok $([ "$out" = "$base" ] && grep -q "no DRI render node and no NVIDIA device" "$TEST_TMP/err"; echo $?) \
        "gpu: a host without a GPU: nothing bound, and a warning"
    skip "gpu: this host has no DRI render node and no NVIDIA device to bind"
fi
check_fails "gpu: no /dev/dri without the flag" -- inside -- -c 'test -e /dev/dri'

# NVIDIA: CUDA's runtime listens on an AF_UNIX seqpacket socket at start
# (an abstract name); --allow-gpu lifts that socket type, nothing next to it.
if [ -e /dev/nvidiactl ] && ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    cat >sock.py <<'PY'
import socket
for name, kind in (("seqpacket", socket.SOCK_SEQPACKET), ("stream", socket.SOCK_STREAM)):
    try:
        s = socket.socket(socket.AF_UNIX, kind)
        s.bind("\0asb-devices-" + name)
        s.listen(1)
        print(name, "ok")
    except OSError as e:
        print(name, e.errno)
PY
    out=$(inside --allow-gpu -- -c 'python3 sock.py' 2>&1 | tr '\n' ' ')
    ok $([ "$out" = "seqpacket ok stream 1 " ]; echo $?) \
        "nvidia: an AF_UNIX seqpacket listener (as CUDA makes), no other AF_UNIX socket ($out)"
    out=$(inside -- -c 'python3 sock.py' 2>&1 | tr '\n' ' ')
    ok $([ "$out" = "seqpacket 1 stream 1 " ]; echo $?) "nvidia: neither without the flag ($out)"
    show=$(inside --allow-gpu --show-config 2>&1)
    ok $(grep -q "^seccomp.unix_seqpacket *allowed \[devices\]" <<<"$show" &&
        grep -q "^seccomp.unix_sockets *denied" <<<"$show"; echo $?) \
        "nvidia: --show-config names the group devices lifted"
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
        out=$(inside --allow-gpu -- -c 'nvidia-smi -L' 2>&1)
        ok $(grep -q "^GPU 0: " <<<"$out"; echo $?) "nvidia: nvidia-smi inside lists the GPU ($out)"
        check_fails "nvidia: nvidia-smi reaches no GPU without the flag" -- inside -- -c 'nvidia-smi -L'
    else
        skip "nvidia: no working nvidia-smi on this host"
    fi
else
    skip "nvidia: this host has no NVIDIA GPU node"
fi

done_testing
