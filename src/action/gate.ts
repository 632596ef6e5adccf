// `mode: gate`, phase by phase (docs/development.md, Architecture): set up (the event, the
// config, the store and what it holds) → run and judge (against the stored baseline, or A/B
// on this runner) → store (when the event and the policy allow) → the branch's open
// regressions → publish (files, artifacts, dashboard, GitHub, the step).

import { errorMessage } from '../errors.js';
import type { GitHubContext } from '../github/event.js';
import { measureAndJudge } from './gate-measure.js';
import { publishReport, writeAndUpload } from './gate-publish.js';
import { withMissingSeries } from './missing-series.js';
import { withOpenRegressions } from './open-regressions.js';
import { setUpGate, type GateSetup } from './gate-setup.js';
import { planStore, storeResults } from './gate-store.js';
import type { GitHubSettings } from './settings.js';

/** The store's connections end with the run; a failure to close them changes nothing. */
async function closeStore(setup: GateSetup): Promise<void> {
  try {
    await setup.configured.close?.();
  } catch (error) {
    setup.log.warning(`could not close the baseline store: ${errorMessage(error)}`);
  }
}

/** What main needs to know after the gate: whether work was left running (see Deadline). */
export interface GateModeOutcome {
  abandonedWork: boolean;
}

export async function runGateMode(
  github: GitHubContext,
  settings: GitHubSettings,
  workspace: string,
): Promise<GateModeOutcome> {
  const setup = await setUpGate(github, settings, workspace);
  if (!setup) return { abandonedWork: false };
  try {
    const judged = await measureAndJudge(setup);
    setup.publishing.start(setup.limits.publishTimeoutMs);
    const plan = planStore(setup, judged);
    const written = await writeAndUpload(setup, plan.report);
    const stored = await storeResults(setup, plan, written.report);
    const withOpen = await withOpenRegressions(setup, written, stored);
    const shown = await withMissingSeries(setup, withOpen, stored.missing);
    await publishReport(setup, shown, stored);
    return { abandonedWork: setup.publishing.abandoned };
  } finally {
    await closeStore(setup);
  }
}
