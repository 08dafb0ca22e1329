'use strict';
// express 5, as its production guide runs it: NODE_ENV=production, no logger, no x-powered-by.

const http = require('node:http');
const https = require('node:https');
const express = require('express');
const { tlsFromEnv } = require('lib/tls');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

const port = portFromEnv();
const host = hostFromEnv();
const users = createUsers();
const app = express();
app.disable('x-powered-by');

app.get('/', (req, res) => {
  res.type('text/plain').send('Hello World!');
});

app.get('/json', (req, res) => {
  res.json({ message: 'Hello, World!' });
});

app.get('/users/:id', async (req, res) => {
  const { status, body } = await users.find(req.params.id);
  res.status(status).json(body);
});

// app.listen's own server, or on an https start the same app under node:https (lib/tls.js).
const tls = tlsFromEnv();
const server = tls ? https.createServer(tls, app) : http.createServer(app);
server.listen({ port, host, backlog: BACKLOG });
stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
