// Deno's own HTTP server (Deno.serve) on DENO_JOBS isolates, each a Web Worker running server.js
// with its own SO_REUSEPORT listener on HOST:PORT, so the kernel spreads connections over them.
// `deno serve --parallel`, used before, shares one listener among its isolates, and a burst of
// connections (every point's start) went to one isolate (the fairness check found it: one of two
// working); nor does it pass on a listen backlog (511). reusePort needs --unstable-net. The
// isolates listen together, once every one has loaded, so the first to answer (readiness) does
// not serve alone while another still compiles.

const jobs = Number(Deno.env.get("DENO_JOBS"));
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`DENO_JOBS must be a positive integer, got '${Deno.env.get("DENO_JOBS") ?? ""}'`);
  Deno.exit(2);
}

let loaded = 0;
let listening = 0;
let stopped = 0;
let stopping = false;
const workers = [];
for (let i = 1; i <= jobs; ++i) {
  const worker = new Worker(new URL("./server.js", import.meta.url).href, {
    type: "module",
    name: `serve-${i}`,
  });
  worker.onmessage = ({ data }) => {
    if (data.loaded && ++loaded === jobs) {
      for (const each of workers) each.postMessage({ listen: true });
    }
    if (data.listening && ++listening === jobs) {
      console.log(`listening on ${data.listening} with ${jobs} isolate(s)`);
    }
    if (data.stopped && ++stopped === jobs) Deno.exit(0);
  };
  // An isolate that dies is a failed run, not something to paper over with a restart.
  worker.onerror = (event) => {
    console.error(`isolate ${i}: ${event.message}; stopping`);
    Deno.exit(1);
  };
  workers.push(worker);
}

// Each isolate ends its pool (whose idle connections would keep it alive), then says so.
function stop() {
  if (stopping) return;
  stopping = true;
  for (const worker of workers) worker.postMessage({ stop: true });
  setTimeout(() => Deno.exit(0), 3000);
}
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
