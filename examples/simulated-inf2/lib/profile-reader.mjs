// Reads what a simulated profile holds, the way a viewer opens it: an NTFF (device trace)
// together with the NEFF (compiled graph) it was recorded from. Either one pair given on
// the command line (`-n X.neff -s Y.ntff`) or every NTFF of a session folder (`-d DIR`),
// in layout A or B (see profile-writer.mjs). Problems with the files are ToolErrors
// (exit 1); paths that do not exist are the command line's fault and checked before.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ToolError } from './errors.mjs';
import { decodeSimFile } from './sim-file-format.mjs';

/** A file's header, or a ToolError saying what the file is not. */
function readHeader(path, magic, kind, what) {
  const bytes = readFileSync(path);
  if (bytes.length === 0 && kind === 'ntff') {
    throw new ToolError(
      `${path} contains no device trace (0 bytes): nothing was captured on the device ` +
        '(was NEURON_RT_INSPECT_DEVICE_PROFILE set to 1, model or session?)',
    );
  }
  let decoded;
  try {
    decoded = decodeSimFile(bytes);
  } catch (error) {
    throw new ToolError(`${path} is not a valid ${what} file: ${error.message}`);
  }
  if (decoded.magic !== magic || decoded.header?.kind !== kind) {
    throw new ToolError(`${path} is not a valid ${what} file (found ${decoded.magic})`);
  }
  return decoded.header;
}

export const readNtff = (path) => readHeader(path, 'SIMNTFF', 'ntff', 'NTFF');
export const readNeff = (path) => readHeader(path, 'SIMNEFF', 'neff', 'NEFF');

/** Does this NTFF graph entry come from this NEFF? */
const recordedFrom = (entry, neff) => entry.graph === neff.graph && entry.neff_id === neff.neff_id;

/**
 * The profiled graphs of one NEFF + NTFF pair: the NTFF's entries recorded from that NEFF
 * (a session NTFF of layout B holds every graph of its NeuronCore; the NEFF picks one).
 * Each: { ntff, ntffPath, neff, neffPath, entry }.
 */
export function readPair(neffPath, ntffPath) {
  const neff = readNeff(neffPath);
  const ntff = readNtff(ntffPath);
  const entries = ntff.graphs.filter((entry) => recordedFrom(entry, neff));
  if (entries.length === 0) {
    throw new ToolError(
      `${ntffPath} holds no trace of the graph in ${neffPath} ` +
        `(NEFF ${neff.graph} ${neff.neff_id}; NTFF has ${ntff.graphs.map((g) => g.graph).join(', ')})`,
    );
  }
  return entries.map((entry) => ({ ntff, ntffPath, neff, neffPath, entry }));
}

/** NTFF files directly in `dir`, in name order. */
function ntffNames(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.ntff'))
    .map((e) => e.name)
    .sort();
}

/** Where NTFFs are one level further down, for a helpful message (layout B's timestamp). */
function subfoldersWithNtffs(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .filter((sub) => {
      try {
        return ntffNames(sub).length > 0;
      } catch {
        return false;
      }
    });
}

/**
 * Every profiled graph of a session folder: each NTFF in it, each graph entry of each
 * NTFF, with the NEFF the entry names (it must be in the same folder).
 */
export function readSessionDir(dir) {
  const names = ntffNames(dir);
  if (names.length === 0) {
    const deeper = subfoldersWithNtffs(dir);
    throw new ToolError(
      `no .ntff file in ${dir}` +
        (deeper.length > 0
          ? `; pass the session folder that holds them: ${deeper.join(', ')}`
          : ''),
    );
  }
  const neffs = new Map();
  const graphs = [];
  for (const name of names) {
    const ntffPath = join(dir, name);
    const ntff = readNtff(ntffPath);
    for (const entry of ntff.graphs) {
      const neffPath = join(dir, basename(entry.neff ?? ''));
      if (!entry.neff || !isFile(neffPath)) {
        throw new ToolError(
          `${ntffPath}: NEFF ${entry.neff} of graph ${entry.graph} not found in ${dir}`,
        );
      }
      if (!neffs.has(neffPath)) neffs.set(neffPath, readNeff(neffPath));
      const neff = neffs.get(neffPath);
      if (!recordedFrom(entry, neff)) {
        throw new ToolError(`${ntffPath}: ${neffPath} is not the NEFF graph ${entry.graph} ran`);
      }
      graphs.push({ ntff, ntffPath, neff, neffPath, entry });
    }
  }
  return graphs;
}

export function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
