#!/usr/bin/env bash
# The Debian `Depends:` of the given binaries, the way dpkg-shlibdeps finds it but with
# dpkg alone: each shared library they load (ldd) belongs to a package (dpkg -S); the
# lowest version of it that has every symbol they take from it comes from that package's
# symbols file (its shlibs file when it has none). Prints "pkg (>= v), pkg, …".
set -euo pipefail
declare -A need
for bin in "$@"; do
    # "symbol@VERSION" of every symbol the binary takes from a shared library.
    objdump -T "$bin" | awk '$0 ~ /\*UND\*/ && NF >= 5 { v = $(NF-1); s = $NF; gsub(/[()]/, "", v); if (v != "" && v != "Base") print s "@" v }' >> "${TMPDIR:-/tmp}/nexus-depends.$$"
    for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
        pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) \
            || pkg=$(dpkg -S "$lib" | head -1 | cut -d: -f1)
        need[$pkg]=1
    done
done
symbols="${TMPDIR:-/tmp}/nexus-depends.$$"
trap 'rm -f "$symbols"' EXIT
out=()
for pkg in $(printf '%s\n' "${!need[@]}" | sort); do
    info=$(ls /var/lib/dpkg/info/"$pkg".symbols /var/lib/dpkg/info/"$pkg":*.symbols 2>/dev/null | head -1 || true)
    min=""
    if [ -n "$info" ]; then
        # The highest minimum version among the symbols used that this package lists.
        min=$(awk 'NR == FNR { used[$1] = 1; next } /^ / && ($1 in used) { print $2 }' "$symbols" "$info" | sort -uV | tail -1)
        # A "#MINVER#"-style placeholder or a debian revision is kept as dpkg writes it.
    else
        shlibs=$(ls /var/lib/dpkg/info/"$pkg".shlibs /var/lib/dpkg/info/"$pkg":*.shlibs 2>/dev/null | head -1 || true)
        [ -n "$shlibs" ] && min=$(awk '!/^udeb:/ && match($0, /\(>= [^)]*\)/) { v = substr($0, RSTART + 4, RLENGTH - 5); print v }' "$shlibs" | sort -uV | tail -1)
    fi
    if [ -n "$min" ] && [ "$min" != 0 ]; then out+=("$pkg (>= $min)"); else out+=("$pkg"); fi
done
(IFS=,; echo "${out[*]}" | sed 's/,/, /g')
