#!/bin/sh
# ringside serve as the harness starts it: plain HTTP on PORT, or, given a certificate and its key
# (an https start), TLS on PORT with the plain listener on a throwaway port.
#   start.sh RINGSIDE HOST PORT THREADS DB_URL [TLS_CERT TLS_KEY]
set -eu
bin=$1 host=$2 port=$3 threads=$4 db=$5 cert=${6:-} key=${7:-}
if [ -n "$cert" ]; then
  exec "$bin" serve --host "$host" --port 0 --threads "$threads" --db "$db" \
    --tls-port "$port" --tls-cert "$cert" --tls-key "$key"
fi
exec "$bin" serve --host "$host" --port "$port" --threads "$threads" --db "$db"
