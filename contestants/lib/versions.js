'use strict';
// Prints one line: the Node.js version and the installed version of each package named, as the
// manifests' `version` command (`node {bundled}/lib/versions.js express pg`). Packages are read
// from the node_modules beside this lib/, the bundled folder's.

const fs = require('node:fs');
const path = require('node:path');

const parts = [`node ${process.version}`];
for (const name of process.argv.slice(2)) {
  const file = path.join(__dirname, '..', 'node_modules', name, 'package.json');
  let version = 'not installed';
  try {
    version = JSON.parse(fs.readFileSync(file, 'utf8')).version;
  } catch {}
  parts.push(`${name} ${version}`);
}
console.log(parts.join(', '));
