'use strict';
// express 5, as its production guide runs it: NODE_ENV=production, no logger, no x-powered-by.

const express = require('express');
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

const server = app.listen({ port, host, backlog: BACKLOG });
stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
