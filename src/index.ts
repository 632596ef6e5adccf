// First: the secrets leave the environment block (the gate re-executes itself), then the
// event payload is read before @actions/github (loaded with main) parses it.
import './secrets-first.js';
import './github/event-file-guard.js';
import { main } from './main.js';
import { exitOnTerminationSignals } from './signals.js';

exitOnTerminationSignals();
await main();
