'use strict';
// The TLS options of a Node.js contestant's https start. TLS_CERT and TLS_KEY are the harness's
// {tls_cert} and {tls_key} (PEM files): both given on an https start, both empty on a plain one,
// so one manifest serves both protocols. ALPN http/1.1 (what these servers speak) and TLS 1.2 at
// least; Node's defaults otherwise, as a production server keeps them (its cipher list, session
// tickets on).

const fs = require('node:fs');

// null on a plain start; else the options for https.createServer (or a framework's https option).
function tlsFromEnv() {
  const cert = process.env.TLS_CERT || '';
  const key = process.env.TLS_KEY || '';
  if (cert === '' && key === '') return null;
  if (cert === '' || key === '') {
    console.error('TLS_CERT and TLS_KEY go together: both files for https, neither for http');
    process.exit(2);
  }
  return {
    cert: fs.readFileSync(cert),
    key: fs.readFileSync(key),
    ALPNProtocols: ['http/1.1'],
    minVersion: 'TLSv1.2',
  };
}

// The same for node:http2's createSecureServer: h2 by ALPN, and HTTP/1.1 still for a client that
// offers only that (allowHTTP1 hands it to node:http's code), so one https start serves both.
function http2FromEnv() {
  const tls = tlsFromEnv();
  if (tls === null) return null;
  delete tls.ALPNProtocols;  // node:http2 offers h2, then http/1.1 with allowHTTP1
  return { ...tls, allowHTTP1: true };
}

module.exports = { tlsFromEnv, http2FromEnv };
