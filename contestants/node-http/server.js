'use strict';
// node:http with no framework: the seeds' "node index.js", plus pg for /users/:id; node:https
// with the same handler on an https start (lib/tls.js).

const http = require('node:http');
const https = require('node:https');
const { tlsFromEnv } = require('lib/tls');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

function send(res, status, type, body) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function start() {
  const port = portFromEnv();
  const host = hostFromEnv();
  const users = createUsers();
  const tls = tlsFromEnv();
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
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  server.listen({ port, host, backlog: BACKLOG });
  stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
}

if (require.main === module) start();
module.exports = { start };
