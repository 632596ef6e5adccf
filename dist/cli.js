#!/usr/bin/env node
// The CLI's launcher, dist/cli.js. Written in ES5 on purpose: any Node.js can parse it, so
// an old one says which version is needed instead of failing with a SyntaxError in the
// bundle (dist/cli-bundle.js), which needs Node.js 20 or newer. The bundle is loaded only
// after the check, by an import() kept in a string so that old parsers never see it.
'use strict';

var REQUIRED_MAJOR = 20;
var version = process.versions.node;
var major = parseInt(version.split('.')[0], 10);

// Prettier must not add trailing commas to calls here (ES2017): each call takes one short
// argument, built first.
if (!(major >= REQUIRED_MAJOR)) {
  var message =
    'neuron-perf-gate: needs Node.js ' +
    REQUIRED_MAJOR +
    ' or newer, but this is Node.js ' +
    version +
    ' (' +
    process.execPath +
    ').\n' +
    'Install Node.js ' +
    REQUIRED_MAJOR +
    ' or newer (https://nodejs.org/) and run it again, ' +
    'or name a newer node: /path/to/node dist/cli.js ...\n';
  process.stderr.write(message);
  process.exit(2);
}

var load = new Function('specifier', 'return import(specifier)');
load('./cli-bundle.js').then(null, function (error) {
  var detail = error && error.stack ? error.stack : String(error);
  process.stderr.write('neuron-perf-gate: could not load dist/cli-bundle.js: ' + detail + '\n');
  process.exit(2);
});
