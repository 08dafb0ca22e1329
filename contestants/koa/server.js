'use strict';
// koa 3 with @koa/router, no logging middleware.

const http = require('node:http');
const https = require('node:https');
const Koa = require('koa');
const { tlsFromEnv } = require('lib/tls');
const { Router } = require('@koa/router');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

const port = portFromEnv();
const host = hostFromEnv();
const users = createUsers();
const app = new Koa();
const router = new Router();

router.get('/', (ctx) => {
  ctx.type = 'text/plain';
  ctx.body = 'Hello World!';
});

router.get('/json', (ctx) => {
  ctx.body = { message: 'Hello, World!' };
});

router.get('/users/:id', async (ctx) => {
  const { status, body } = await users.find(ctx.params.id);
  ctx.status = status;
  ctx.body = body;
});

app.use(router.routes()).use(router.allowedMethods());

// app.listen's own server, or on an https start the same app under node:https (lib/tls.js).
const tls = tlsFromEnv();
const server = tls ? https.createServer(tls, app.callback()) : http.createServer(app.callback());
server.listen({ port, host, backlog: BACKLOG });
stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
