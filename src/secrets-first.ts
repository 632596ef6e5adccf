// Imported first by the action's entry point (src/index.ts), before any other module runs:
// the gate starts itself again without its secrets in the environment block. Kept apart
// from secrets-in-memory.ts so that importing the functions (a test) never re-executes.
import { keepSecretsInMemoryOnly } from './secrets-in-memory.js';

keepSecretsInMemoryOnly();
