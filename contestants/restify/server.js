'use strict';
// restify 11, no audit logger or other plugins.

const restify = require('restify');
const { tlsFromEnv } = require('lib/tls');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

const port = portFromEnv();
const host = hostFromEnv();
const users = createUsers();
// On an https start restify makes a node:https server with these options (lib/tls.js).
const tls = tlsFromEnv();
const server = restify.createServer(tls ? { httpsServerOptions: tls } : {});

server.get('/', (req, res, next) => {
  res.header('Content-Type', 'text/plain');
  res.send(200, 'Hello World!');
  return next();
});

server.get('/json', (req, res, next) => {
  res.json(200, { message: 'Hello, World!' });
  return next();
});

server.get('/users/:id', async (req, res) => {
  const { status, body } = await users.find(req.params.id);
  res.json(status, body);
});

server.listen({ port, host, backlog: BACKLOG });
stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
