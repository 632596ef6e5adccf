import { main } from './main.js';
import { exitOnTerminationSignals } from './signals.js';

exitOnTerminationSignals();
await main();
