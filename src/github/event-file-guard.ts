// @actions/github parses the event payload (GITHUB_EVENT_PATH) as soon as it is loaded,
// for its `context`, which the gate does not use: a payload that is not JSON then kills the
// action with a stack trace before main() can say what is wrong. Imported first by the
// action's entry point, this reads the payload before @actions/github loads; when it
// cannot be used, it hides the path from @actions/github and keeps the reason, which
// main() reports as a clean error (and the fork check then refuses to run: fail closed).

import { readEventPayload } from './event.js';

let problem: Error | undefined;
try {
  readEventPayload(process.env.GITHUB_EVENT_PATH, { unreadable: 'throw' });
} catch (error) {
  problem = error instanceof Error ? error : new Error(String(error));
  delete process.env.GITHUB_EVENT_PATH;
}

/** Why the event payload could not be used, when it could not. */
export function eventFileProblem(): Error | undefined {
  return problem;
}
