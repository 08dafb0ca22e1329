#!/bin/sh
# Usage: start.sh PORT THREADS WORKDIR [HOST [CERT KEY]] — renders h2o.conf.template into WORKDIR
# and runs THREADS h2o processes of one thread each in the foreground, each on its own
# SO_REUSEPORT listener on HOST (default 127.0.0.1) (reuseport.pl says why), never touching
# /etc/h2o or /var. With CERT and KEY (PEM files: the harness's {tls_cert} and {tls_key}, empty on
# a plain start) each listens with TLS instead.
set -eu
port=$1 threads=$2 workdir=$3 host=${4:-127.0.0.1} cert=${5:-} key=${6:-}
dir=$(cd "$(dirname "$0")" && pwd)
ssl=""
if [ -n "$cert" ] || [ -n "$key" ]; then
  [ -n "$cert" ] && [ -n "$key" ] || { echo "start.sh: CERT and KEY go together" >&2; exit 2; }
  # TLS 1.2 and 1.3; no OCSP stapling (a throwaway CA has no responder, and h2o would run a
  # fetcher for it every so often).
  ssl="ssl: {certificate-file: \"$cert\", key-file: \"$key\", minimum-version: TLSv1.2, ocsp-update-interval: 0}"
fi
sed -e "s|{port}|$port|g" -e "s|{workdir}|$workdir|g" -e "s|{host}|$host|g" -e "s|{dir}|$dir|g" \
  -e "s|{ssl}|$ssl|g" "$dir/h2o.conf.template" > "$workdir/h2o.conf"
exec perl "$dir/reuseport.pl" "$host" "$port" "$threads" h2o --mode worker -c "$workdir/h2o.conf"
