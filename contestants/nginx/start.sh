#!/bin/sh
# Usage: start.sh PORT THREADS WORKDIR [HOST [CERT KEY]] — renders nginx.conf.template into
# WORKDIR and runs nginx, listening on HOST (default 127.0.0.1), in the foreground there (its
# prefix, pid and temp paths), never touching /etc/nginx or /var. With CERT and KEY (PEM files:
# the harness's {tls_cert} and {tls_key}, empty on a plain start) it listens with TLS instead,
# and offers HTTP/2 by ALPN there.
set -eu
port=$1 threads=$2 workdir=$3 host=${4:-127.0.0.1} cert=${5:-} key=${6:-}
here=$(dirname "$0")
# nginx wants an IPv6 address in brackets: listen [::1]:PORT.
case $host in *:*) host="[$host]" ;; esac
ssl=""
: > "$workdir/tls.conf"
if [ -n "$cert" ] || [ -n "$key" ]; then
  [ -n "$cert" ] && [ -n "$key" ] || { echo "start.sh: CERT and KEY go together" >&2; exit 2; }
  # http2: h2 by ALPN on the TLS listener, HTTP/1.1 still for a client that offers only that
  # (nginx 1.22 has no h2c beside HTTP/1.1 on a plain listener, so its manifest lists h2 alone).
  ssl=" ssl http2"
  # As a production site would (Mozilla's "intermediate" profile): TLS 1.2 and 1.3, ECDHE with
  # AEAD ciphers for 1.2, and both ways of resuming a session, a cache shared by the workers and
  # tickets (their key made by nginx at start). No early data (nginx's default).
  cat > "$workdir/tls.conf" <<EOF
ssl_certificate $cert;
ssl_certificate_key $key;
ssl_protocols TLSv1.2 TLSv1.3;
ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;
ssl_prefer_server_ciphers off;
ssl_session_cache shared:TLS:10m;
ssl_session_timeout 1h;
ssl_session_tickets on;
EOF
fi
sed -e "s|{port}|$port|g" -e "s|{threads}|$threads|g" -e "s|{workdir}|$workdir|g" \
  -e "s|{host}|$host|g" -e "s|{ssl}|$ssl|g" \
  "$here/nginx.conf.template" > "$workdir/nginx.conf"
# -e: the error log before the configuration is read (the compiled-in one is under /var/log).
exec nginx -p "$workdir/" -c "$workdir/nginx.conf" -e stderr
