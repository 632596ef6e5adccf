// First: reads the event payload before @actions/github (loaded with main) parses it.
import './github/event-file-guard.js';
import { main } from './main.js';
import { exitOnTerminationSignals } from './signals.js';

exitOnTerminationSignals();
await main();
