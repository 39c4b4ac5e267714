#!/usr/bin/env bash
# A throwaway CA and server certificates for the TLS tests, made with the openssl CLI:
#   make-test-certs.sh DIR
# DIR/ca.pem            the test CA (pass it to nexusctl --cacert, curl --cacert)
# DIR/server.pem, .key  localhost and 127.0.0.1, signed by the CA (leaf, then the CA: a full chain)
# DIR/rotated.pem, .key the same names, another key and serial (SIGHUP rotation)
# DIR/expired.pem, .key valid only during one day of 2020
# DIR/wronghost.pem, .key  for other.invalid only
# Nothing here is trusted by the system; the files live and die with the test.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; "$@"; exit 1; }; }

quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=Nexus test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# `openssl ca` is the one tool of openssl 3.0 that takes exact start and end dates.
mkdir -p ca-db
: > ca-db/index.txt
echo 1000 > ca-db/serial
cat > ca.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
dir = ca-db
database = ca-db/index.txt
serial = ca-db/serial
new_certs_dir = ca-db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = copy
[ anything ]
commonName = supplied
CNF

# issue NAME SAN [CA-ARGS...]
issue() {
    local name=$1 san=$2
    shift 2
    quiet openssl req -newkey rsa:2048 -nodes -keyout "$name.key" -out "$name.csr" -subj "/CN=$name" \
        -addext "subjectAltName=$san" -addext "extendedKeyUsage=serverAuth"
    quiet openssl ca -batch -config ca.cnf -in "$name.csr" -out "$name.leaf" -notext "$@"
    cat "$name.leaf" ca.pem > "$name.pem"
    rm -f "$name.csr" "$name.leaf"
}
issue server "DNS:localhost,IP:127.0.0.1" -days 2
issue rotated "DNS:localhost,IP:127.0.0.1" -days 2
issue expired "DNS:localhost,IP:127.0.0.1" -startdate 20200101000000Z -enddate 20200102000000Z
issue wronghost "DNS:other.invalid" -days 2
chmod 600 ./*.key
