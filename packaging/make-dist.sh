#!/usr/bin/env bash
# `make dist`: nexusctl and nexusd as release builds with the Swift runtime linked in
# (--static-swift-stdlib), so they run where no Swift toolchain is; then a tarball and a
# Debian package of them, with the man pages, the completions and a systemd unit, in $DIST.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${DIST:-dist}
export NEXUS_COMMIT=${NEXUS_COMMIT:-$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)}
version=$(sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/NexusWire/BuildInfo.swift)
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
machine=$(uname -m)

swift build -c release --static-swift-stdlib --product nexusctl
swift build -c release --static-swift-stdlib --package-path Server --product nexusd
ctl="$(swift build -c release --show-bin-path)/nexusctl"
srv="$(swift build -c release --package-path Server --show-bin-path)/nexusd"

# Nothing of the toolchain may remain: no Swift library, nothing under its folder.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
for b in "$ctl" "$srv"; do
    if ldd "$b" | grep -E "libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|$toolchain" >&2; then
        echo "make dist: $(basename "$b") still loads the Swift runtime (above)" >&2
        exit 1
    fi
done

rm -rf "$dist"
mkdir -p "$dist"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The tarball: one folder, ready to copy (docs/deploy.md).
name="nexus-$version-linux-$machine"
t="$stage/$name"
install -d "$t/bin" "$t/man/man1" "$t/completions" "$t/systemd"
# Stripped: the debug information is most of the size (168 MB of nexusd).
install -s -m 755 "$ctl" "$srv" "$t/bin/"
install -m 644 docs/nexusctl.1 docs/nexusd.1 "$t/man/man1/"
install -m 644 completions/nexusctl.bash completions/nexusctl.zsh completions/nexusctl.fish "$t/completions/"
install -m 644 packaging/nexusd.service "$t/systemd/"
cat > "$t/README" <<TEXT
nexus $version (commit $NEXUS_COMMIT): nexusctl and nexusd, with the Swift runtime linked in.
They need only libc, libstdc++, libgcc_s and (nexusctl) OpenSSL 3 (Debian: libssl3).

  bin/nexusctl, bin/nexusd     copy to /usr/local/bin
  man/man1/                    copy to /usr/local/share/man/man1
  completions/nexusctl.bash    /usr/share/bash-completion/completions/nexusctl
  completions/nexusctl.zsh     a folder of \$fpath, as _nexusctl
  completions/nexusctl.fish    /usr/share/fish/vendor_completions.d/nexusctl.fish
  systemd/nexusd.service       see docs/deploy.md (it expects /usr/bin/nexusd and a nexusd user)
TEXT
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$dist/$name.tar.gz" "$name"

# The Debian package: the same files in the usual places.
d="$stage/deb"
install -d "$d/DEBIAN" "$d/usr/bin" "$d/usr/share/man/man1" "$d/usr/share/bash-completion/completions" \
    "$d/usr/share/zsh/vendor-completions" "$d/usr/share/fish/vendor_completions.d" "$d/usr/lib/systemd/system" \
    "$d/usr/share/doc/nexus"
install -s -m 755 "$ctl" "$srv" "$d/usr/bin/"
for page in nexusctl nexusd; do gzip -9n < "docs/$page.1" > "$d/usr/share/man/man1/$page.1.gz"; done
install -m 644 completions/nexusctl.bash "$d/usr/share/bash-completion/completions/nexusctl"
install -m 644 completions/nexusctl.zsh "$d/usr/share/zsh/vendor-completions/_nexusctl"
install -m 644 completions/nexusctl.fish "$d/usr/share/fish/vendor_completions.d/nexusctl.fish"
install -m 644 packaging/nexusd.service "$d/usr/lib/systemd/system/nexusd.service"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$d/DEBIAN/"
gzip -9n < docs/deploy.md > "$d/usr/share/doc/nexus/deploy.md.gz"

depends=$(bash packaging/depends.sh "$ctl" "$srv")
# nexusctl loads libssl.so.3 only when a command speaks HTTPS (dlopen, Sources/COpenSSL), so
# ldd does not show it; it is a dependency all the same.
case "$depends" in *libssl3*) ;; *) depends="$depends, libssl3 (>= 3.0.0)" ;; esac
size=$(du -sk --exclude=DEBIAN "$d" | cut -f1)
cat > "$d/DEBIAN/control" <<TEXT
Package: nexus
Version: $version
Architecture: $arch
Maintainer: Nexus <nexus@example.com>
Installed-Size: $size
Depends: $depends, adduser
Section: net
Priority: optional
Homepage: https://github.com/nexus/nexus
Description: offline-first messaging for terminals and scripts
 nexusctl sends, queues (safe offline) and follows messages from the command
 line and scripts; nexusd is its sync server, on SQLite or PostgreSQL, with a
 hardened systemd unit (nexusd.service; disabled until you enable it).
 Built from commit $NEXUS_COMMIT.
TEXT
dpkg-deb --root-owner-group -Zgzip --build "$d" "$dist/nexus_${version}_$arch.deb" >/dev/null

ls -l "$dist"
