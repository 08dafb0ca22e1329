'use strict';
// node:http with no framework: the seeds' "node index.js", plus pg for /users/:id; on an https
// start node:http2's secure server with the same handler (its compatibility API), which speaks
// h2 by ALPN and HTTP/1.1 to a client that offers only that (lib/tls.js).

const http = require('node:http');
const http2 = require('node:http2');
const { http2FromEnv } = require('lib/tls');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function start() {
  const port = portFromEnv();
  const host = hostFromEnv();
  const users = createUsers();
  const tls = http2FromEnv();
  const handle = (req, res) => {
    const mark = req.url.indexOf('?');
    const path = mark === -1 ? req.url : req.url.slice(0, mark);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'method not allowed\n');
    } else if (path === '/') {
      send(res, 200, 'text/plain', 'Hello World!');
    } else if (path === '/json') {
      send(res, 200, 'application/json', JSON.stringify({ message: 'Hello, World!' }));
    } else if (path.startsWith('/users/')) {
      users.find(path.slice('/users/'.length)).then(({ status, body }) => {
        send(res, status, 'application/json', JSON.stringify(body));
      });
    } else {
      send(res, 404, 'text/plain', 'no route for this path\n');
    }
  };
  const server = tls ? http2.createSecureServer(tls, handle) : http.createServer(handle);
  server.listen({ port, host, backlog: BACKLOG });
  stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
}

if (require.main === module) start();
module.exports = { start };
