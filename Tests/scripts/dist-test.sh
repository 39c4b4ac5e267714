#!/usr/bin/env bash
# `make dist-test`: make dist's artifacts where no Swift toolchain is.
# 1. The tarball, unpacked in a temporary folder, run in a private mount namespace with an
#    empty tmpfs over the toolchain's folder: nexusd starts on loopback with SQLite, nexusctl
#    registers two people, one tails while the other sends, and the message arrives.
# 2. The Debian package: dpkg-deb --info and --contents list what they should, the
#    maintainer scripts pass `sh -n`, and `dpkg -i` installs it for real into a throwaway
#    overlay of the host's own root (chroot; nothing reaches the real system), with the
#    toolchain hidden there too; the installed binaries run, and the nexusd user exists.
# Needs root (unshare, mount, chroot).
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=${DIST:-dist}
tarball=$(ls "$dist"/nexus-*.tar.gz)
deb=$(ls "$dist"/nexus_*.deb)
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
[ "$(id -u)" = 0 ] || { echo "dist-test: needs root (unshare -m, mount, chroot)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "dist-test: FAIL: $*" >&2; exit 1; }

echo "dist-test: toolchain hidden: $toolchain"
tar -xzf "$tarball" -C "$work"
folder=$(ls -d "$work"/nexus-*/)
for f in bin/nexusctl bin/nexusd man/man1/nexusctl.1 man/man1/nexusd.1 completions/nexusctl.bash \
    completions/nexusctl.zsh completions/nexusctl.fish systemd/nexusd.service; do
    [ -f "$folder/$f" ] || fail "the tarball has no $f"
done
for b in nexusctl nexusd; do
    if ldd "$folder/bin/$b" | grep -E "libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|$toolchain"; then
        fail "$b loads the Swift runtime"
    fi
done

# The end-to-end run, as a script for the namespace.
cat > "$work/e2e.sh" <<'SCRIPT'
set -euo pipefail
bin=$1; dir=$2; toolchain=$3
mount -t tmpfs tmpfs "$toolchain"
[ -z "$(ls -A "$toolchain")" ] || { echo "the toolchain is still visible" >&2; exit 1; }
"$bin/nexusctl" --version
"$bin/nexusd" --version
"$bin/nexusd" --listen 127.0.0.1:0 --db "$dir/nexus.sqlite" --log-level error > "$dir/nexusd.out" 2> "$dir/nexusd.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$dir/nexusd.out" && break; sleep 0.1; done
url=$(sed -n 's/^nexusd listening on //p' "$dir/nexusd.out")
[ -n "$url" ] || { echo "nexusd did not start: $(cat "$dir/nexusd.err")" >&2; exit 1; }
export NEXUS_SERVER=$url
NEXUS_HOME=$dir/alice "$bin/nexusctl" register alice@example.com --name Alice --password-stdin <<< "password123"
NEXUS_HOME=$dir/bob "$bin/nexusctl" register bob@example.com --name Bob --password-stdin <<< "password123"
NEXUS_HOME=$dir/bob "$bin/nexusctl" tail -f --json -n 0 > "$dir/tail.out" 2> "$dir/tail.err" &
tail=$!
sleep 0.5
NEXUS_HOME=$dir/alice "$bin/nexusctl" send bob@example.com "shipped without a toolchain"
for _ in $(seq 100); do grep -q "shipped without a toolchain" "$dir/tail.out" && break; sleep 0.1; done
kill $tail
grep -q '"text":"shipped without a toolchain"' "$dir/tail.out" || { echo "the message did not arrive: $(cat "$dir/tail.err")" >&2; exit 1; }
echo "the message arrived"
SCRIPT
mkdir -p "$work/run"
unshare -m --propagation private bash "$work/e2e.sh" "$folder/bin" "$work/run" "$toolchain" || fail "the tarball's binaries with the toolchain hidden"
"$folder/bin/nexusctl" --version | grep -Eq "^nexusctl 0\.1\.0 \([0-9a-f]{7,}" || fail "nexusctl --version names no commit"
"$folder/bin/nexusd" --version | grep -Eq "^nexusd 0\.1\.0 \([0-9a-f]{7,}" || fail "nexusd --version names no commit"

# The Debian package.
info=$(dpkg-deb --info "$deb")
echo "$info"
for field in "Package: nexus" "Depends: .*libc6 (>= " "Depends: .*libssl3" "Depends: .*libstdc++6" "Depends: .*libgcc-s1"; do
    echo "$info" | grep -q "$field" || fail "dpkg-deb --info has no '$field'"
done
contents=$(dpkg-deb --contents "$deb")
echo "$contents"
for f in ./usr/bin/nexusctl ./usr/bin/nexusd ./usr/share/man/man1/nexusctl.1.gz ./usr/share/man/man1/nexusd.1.gz \
    ./usr/share/bash-completion/completions/nexusctl ./usr/share/zsh/vendor-completions/_nexusctl \
    ./usr/share/fish/vendor_completions.d/nexusctl.fish ./usr/lib/systemd/system/nexusd.service; do
    echo "$contents" | grep -q " $f\$" || fail "the package has no $f"
done
mkdir "$work/control"
dpkg-deb --control "$deb" "$work/control"
for s in "$work"/control/{preinst,postinst,prerm,postrm}; do
    [ -f "$s" ] || continue
    sh -n "$s" || fail "$(basename "$s") does not pass sh -n"
    echo "sh -n $(basename "$s"): ok"
done

# A real dpkg -i into a throwaway overlay of the host's root. The checks inside run from
# the overlay's upper layer (they appear at / in the chroot).
mkdir -p "$work/up" "$work/ow" "$work/root"
cp "$deb" "$work/up/nexus.deb"
cat > "$work/up/inside.sh" <<'SCRIPT'
set -euo pipefail
dpkg -i /nexus.deb
test -x /usr/bin/nexusctl && test -x /usr/bin/nexusd
nexusctl --version
nexusd --version
getent passwd nexusd
test -f /usr/share/man/man1/nexusctl.1.gz
systemd-analyze verify --man=no /usr/lib/systemd/system/nexusd.service
# The unit's own command line (on a free port), the way systemd would run it, as far as
# can be done without systemd as PID 1: as the nexusd user, no new privileges, no
# capabilities, the whole file system read-only but the state directory (ProtectSystem=
# strict + StateDirectory=), a private /tmp, an empty /home. MemoryDenyWriteExecute,
# SystemCallFilter and RestrictAddressFamilies (seccomp) are not reproduced here.
install -d -o nexusd -g nexusd -m 0750 /var/lib/nexusd
unit=/usr/lib/systemd/system/nexusd.service
grep -q '^User=nexusd$' $unit && grep -q '^NoNewPrivileges=yes$' $unit && grep -q '^ProtectSystem=strict$' $unit
cmd=$(sed -n 's/^ExecStart=//p' $unit | sed 's/127.0.0.1:8787/127.0.0.1:0/')
unshare -m --propagation private bash -c "
    set -euo pipefail
    mount --bind /var/lib/nexusd /var/lib/nexusd
    mount -o remount,bind,ro /
    mount -t tmpfs tmpfs /tmp
    mount -t tmpfs -o ro tmpfs /home
    cd /var/lib/nexusd
    XDG_DATA_HOME=/var/lib/nexusd setpriv --reuid=nexusd --regid=nexusd --init-groups --no-new-privs \
        --bounding-set=-all --inh-caps=-all $cmd > /tmp/nexusd.out 2> /tmp/nexusd.err &
    server=\$!
    for _ in \$(seq 100); do grep -q 'listening on' /tmp/nexusd.out && break; sleep 0.1; done
    url=\$(sed -n 's/^nexusd listening on //p' /tmp/nexusd.out)
    [ -n \"\$url\" ] || { echo \"nexusd did not start under the unit's limits: \$(cat /tmp/nexusd.err)\" >&2; exit 1; }
    NEXUS_HOME=/tmp/carol NEXUS_SERVER=\$url nexusctl register carol@example.com --password-stdin <<< password123
    NEXUS_HOME=/tmp/dave NEXUS_SERVER=\$url nexusctl register dave@example.com --password-stdin <<< password123
    NEXUS_HOME=/tmp/carol NEXUS_SERVER=\$url nexusctl send dave@example.com 'from inside the unit'
    kill \$server
    wait \$server || true
    test \"\$(stat -c %U /var/lib/nexusd/nexus.sqlite)\" = nexusd
    echo 'nexusd ran as its unit says: user nexusd, read-only root, database in /var/lib/nexusd'
"
dpkg -r nexus >/dev/null
test ! -e /usr/bin/nexusctl
test -d /var/lib/nexusd
dpkg -P nexus >/dev/null
test ! -e /var/lib/nexusd
! getent passwd nexusd
echo "dpkg -i, -r and -P: ok"
SCRIPT
cat > "$work/install.sh" <<SCRIPT
set -euo pipefail
mount -t overlay overlay -o lowerdir=/,upperdir=$work/up,workdir=$work/ow $work/root
mount -t tmpfs tmpfs $work/root$toolchain
mount --bind /proc $work/root/proc
mount --bind /dev $work/root/dev
mount -t tmpfs tmpfs $work/root/run
chroot $work/root bash /inside.sh
SCRIPT
unshare -m --propagation private bash "$work/install.sh" || fail "dpkg -i into the overlay"
echo "dist-test: all passed"
