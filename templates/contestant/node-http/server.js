'use strict';
// @NAME@: a contestant for `ringside compare` on node:http alone. It answers GET / with
// "Hello World!" and GET /json with {"message":"Hello, World!"} (serialised per request), on
// HOST:PORT from the environment (contestant.toml says how it is started). node:http sets
// TCP_NODELAY itself; the listen backlog is raised from Node's 511 to 4096 (at 10,000
// connections the default overflows).
const http = require('node:http');

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/') {
    response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 12 });
    response.end('Hello World!');
  } else if (request.method === 'GET' && request.url === '/json') {
    const body = JSON.stringify({ message: 'Hello, World!' });
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    response.end(body);
  } else {
    response.writeHead(404, { 'Content-Type': 'application/json' });
    response.end('{"error":"not found"}');
  }
});

server.listen({ host: process.env.HOST || '127.0.0.1', port: Number(process.env.PORT || 8080), backlog: 4096 });
process.on('SIGTERM', () => process.exit(0));
