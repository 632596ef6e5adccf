import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` every 25 ms until it holds or a deadline generous enough for a loaded host
 * passes; says whether it held. Tests wait for a condition this way, never a fixed time.
 */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms = 30_000,
): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return false;
}
