'use strict';
// fastify 5 as its docs advise for speed: no logger, response schemas (fast-json-stringify
// serialises the 200 bodies).

const Fastify = require('fastify');
const { http2FromEnv } = require('lib/tls');
const { BACKLOG, createUsers, hostFromEnv, portFromEnv, stopOn } = require('lib/users');

const port = portFromEnv();
const host = hostFromEnv();
const users = createUsers();
// On an https start fastify makes a node:http2 secure server with these options (lib/tls.js):
// h2 by ALPN, HTTP/1.1 still for a client that offers only that.
const tls = http2FromEnv();
const app = Fastify(tls ? { logger: false, http2: true, https: tls } : { logger: false });

const messageSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
};
const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    email: { type: 'string' },
    created_at: { type: 'string' },
  },
};

app.get('/', async () => {
  return 'Hello World!';
});

app.get('/json', { schema: { response: { 200: messageSchema } } }, async () => {
  return { message: 'Hello, World!' };
});

app.get('/users/:id', { schema: { response: { 200: userSchema } } }, async (request, reply) => {
  const { status, body } = await users.find(request.params.id);
  reply.code(status);
  return body;
});

app.listen({ port, host, backlog: BACKLOG }).catch((error) => {
  console.error(error.message);
  process.exit(1);
});
stopOn(() => app.close().then(users.end));
