'use strict';
// node-http's server under node:cluster: WORKERS processes (one per core given), the primary
// handing out connections round-robin (Node's default on Linux), as pm2's cluster mode runs it.

const cluster = require('node:cluster');

if (cluster.isPrimary) {
  const workers = Number(process.env.WORKERS);
  if (!Number.isInteger(workers) || workers < 1) {
    console.error(`WORKERS must be a positive integer, got '${process.env.WORKERS ?? ''}'`);
    process.exit(2);
  }
  let stopping = false;
  for (let i = 0; i < workers; ++i) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers).length === 0) process.exit(0);
      return;
    }
    // A worker that dies is a failed run, not something to paper over with a restart.
    console.error(`worker ${worker.process.pid} exited (${signal ?? code}); stopping`);
    stop(1);
  });
  function stop(code = 0) {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
    setTimeout(() => process.exit(code), 5000).unref();
    if (Object.keys(cluster.workers).length === 0) process.exit(code);
  }
  process.on('SIGTERM', () => stop());
  process.on('SIGINT', () => stop());
} else {
  require('node-http/server').start();
}
