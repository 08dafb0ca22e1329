'use strict';
// koa 3 with @koa/router, no logging middleware.

const Koa = require('koa');
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

const server = app.listen({ port, host, backlog: BACKLOG });
stopOn(() => new Promise((resolve) => server.close(resolve)).then(users.end));
