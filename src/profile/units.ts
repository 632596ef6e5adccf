import { basename, dirname } from 'node:path';
import type { ProfileFiles } from './discover.js';

/** One call of the profiler's `view`: a NEFF/NTFF pair, or a whole session folder. */
export type ProfileUnit =
  { kind: 'pair'; neff: string; ntff: string } | { kind: 'session'; dir: string };

/**
 * Splits a profile into the calls that summarise it. An NTFF whose NEFF can be told
 * without doubt (layout A: `<id>_instid_0_vnc_<n>.ntff` with `neff_<id>.neff`; layout B:
 * one `neff_<hash>_vnc_<n>.neff` for `profile_nc_<n>_session_<k>.ntff`) is summarised as a
 * pair, so pairs can run side by side; any other folder is summarised whole with `-d`.
 * Empty NTFF files hold nothing and are left out.
 */
export function profileUnits(files: ProfileFiles): ProfileUnit[] {
  const empty = new Set(files.emptyNtffFiles);
  const units: ProfileUnit[] = [];
  const sessions = new Set<string>();
  for (const ntff of files.ntffFiles) {
    if (empty.has(ntff)) continue;
    const neff = matchingNeff(ntff, files.neffFiles);
    if (neff) units.push({ kind: 'pair', neff, ntff });
    else sessions.add(dirname(ntff));
  }
  for (const dir of [...sessions].sort()) units.push({ kind: 'session', dir });
  return units;
}

function matchingNeff(ntff: string, neffs: string[]): string | undefined {
  const folder = dirname(ntff);
  const name = basename(ntff);
  const besides = neffs.filter((neff) => dirname(neff) === folder);
  const layoutA = /^(\d+)_instid_\d+_vnc_\d+\.ntff$/i.exec(name);
  if (layoutA) {
    const found = besides.filter((neff) => basename(neff) === `neff_${layoutA[1]}.neff`);
    return found.length === 1 ? found[0] : undefined;
  }
  const layoutB = /^profile_nc_(\d+)_session_\d+\.ntff$/i.exec(name);
  if (layoutB) {
    const found = besides.filter((neff) =>
      new RegExp(`^neff_[^_]+_vnc_${layoutB[1]}\\.neff$`, 'i').test(basename(neff)),
    );
    return found.length === 1 ? found[0] : undefined;
  }
  return undefined;
}
