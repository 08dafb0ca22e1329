// node:http contestant for bench/e2e/hello.sh: one process, the same bodies as ringside's hello
// routes, so every contestant sends the same bytes.
//
//   node node_http.js PORT
'use strict';
const http = require('node:http');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node node_http.js PORT');
  process.exit(2);
}

const bodies = {
  '/': Buffer.from('Hello World!'),
  '/plaintext': Buffer.from('Hello, World!'),
};

const server = http.createServer((req, res) => {
  const body = bodies[req.url];
  if (body === undefined) {
    res.writeHead(404, { 'Content-Type': 'text/plain', 'Content-Length': 10 });
    res.end('not found\n');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
  res.end(body);
});

// Node closes keep-alive connections idle for 5 s and caps the head wait; wrk keeps every
// connection busy, but the 10k run ramps slowly on one client thread, so give it room.
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.requestTimeout = 0;

// Backlog as large as the others ask for; the kernel caps it at net.core.somaxconn.
server.listen(port, '127.0.0.1', 65535);

process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
