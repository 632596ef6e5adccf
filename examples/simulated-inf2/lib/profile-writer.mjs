// Writes what NEURON_RT_INSPECT_ENABLE=1 leaves in NEURON_RT_INSPECT_OUTPUT_DIR, in one of
// the two layouts the Neuron runtime writes (described under "Profiling" in ../README.md):
//
//   A  i-0sim<hex>_pid_<pid>/<id>_instid_0_vnc_<n>.ntff, neff_<id>.neff, *.pb
//      one NTFF per graph and NeuronCore (device profile 1/model: first execution of each)
//   B  i-0sim<hex>_pid_<pid>/<timestamp>/profile_nc_<n>_session_0.ntff,
//      neff_<hash>_vnc_<n>.neff, *.pb   (device profile session: one NTFF per NeuronCore)
//
// Without a device profile the NTFFs are still created but hold 0 bytes, as on a real
// box where nothing was captured on the device.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deviceFigures, GRAPH_KINDS } from './device-figures.mjs';
import { chipOf, instanceId } from './instances.mjs';
import { encodeSimFile } from './sim-file-format.mjs';
import { SIMULATED_VERSIONS } from './versions.mjs';

const NEFF_BYTES = 2048;
const PB_BYTES = 512;
const SYSTEM_PROFILE_FILES = ['ntrace', 'trace_info', 'cpu_util', 'host_mem'];

/** Ids of a compiled graph: the same configuration compiles to the same NEFF every run. */
function graphIds(configuration, graph) {
  const digest = createHash('sha1')
    .update(JSON.stringify({ ...configuration, graph }))
    .digest();
  // Layout A names a graph by a decimal 64-bit id, layout B by a hex hash.
  return { A: digest.readBigUInt64BE(0).toString(), B: digest.toString('hex') };
}

/** "20251122_022601": UTC time of the session folder of layout B. */
function sessionTimestamp(date) {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
}

/**
 * The files of one profile and what each holds: { name, type: ntff|neff|pb, vnc, graphs }.
 * Only names and grouping depend on the layout; contents are the same.
 */
export function profileFiles(layout, configuration) {
  const cores = Array.from({ length: configuration.tensor_parallel_size }, (_, vnc) => vnc);
  const id = (graph) => graphIds(configuration, graph)[layout];
  const files = [];
  if (layout === 'A') {
    for (const graph of GRAPH_KINDS) {
      for (const vnc of cores) {
        files.push({
          name: `${id(graph)}_instid_0_vnc_${vnc}.ntff`,
          type: 'ntff',
          vnc,
          graphs: [graph],
        });
      }
      files.push({ name: `neff_${id(graph)}.neff`, type: 'neff', vnc: null, graphs: [graph] });
    }
  } else {
    for (const vnc of cores) {
      files.push({
        name: `profile_nc_${vnc}_session_0.ntff`,
        type: 'ntff',
        vnc,
        graphs: GRAPH_KINDS,
      });
      for (const graph of GRAPH_KINDS) {
        files.push({
          name: `neff_${id(graph)}_vnc_${vnc}.neff`,
          type: 'neff',
          vnc,
          graphs: [graph],
        });
      }
    }
  }
  for (const kind of SYSTEM_PROFILE_FILES) {
    files.push({ name: `${kind}.pb`, type: 'pb', vnc: null, graphs: [] });
  }
  return files;
}

/** NTFF bytes: empty without a device profile, else the figures of its graphs. */
function ntffBytes(run, file, neffNameOf) {
  const { settings, knobs, configuration, drift, startedAt, instance } = run;
  if (settings.deviceProfile === 'off') return Buffer.alloc(0);
  const mode = settings.deviceProfile;
  const figures = deviceFigures({ knobs, configuration, drift, vnc: file.vnc, mode });
  const header = {
    kind: 'ntff',
    layout: settings.layout,
    profile_mode: mode,
    instance_type: knobs.instanceType,
    instance_id: instance,
    pid: process.pid,
    vnc: file.vnc,
    captured_at: startedAt.toISOString(),
    compiler_version: SIMULATED_VERSIONS.compiler,
    runtime_version: SIMULATED_VERSIONS.runtime,
    profiler_version: SIMULATED_VERSIONS.profiler,
    // What the profiler divides by: one physical core's Tensor Engine, one HBM stack.
    peak_flops_per_core: chipOf(knobs.instanceType).tensorPeak,
    hbm_bytes_per_second_per_core: chipOf(knobs.instanceType).stackBytesPerSecond,
    physical_cores: knobs.lnc,
    // What the profiler reports in its Warning and ThrottleSummary tables.
    ...(knobs.throttle > 0 ? { throttled_fraction: knobs.throttle } : {}),
    ...(knobs.profileWarning ? { warning: knobs.profileWarning } : {}),
    graphs: figures
      .filter((f) => file.graphs.includes(f.graph))
      .map((f) => ({
        neff: neffNameOf(f.graph, file.vnc),
        neff_id: graphIds(configuration, f.graph)[settings.layout],
        ...f,
      })),
  };
  return encodeSimFile('SIMNTFF', header, {
    minBytes: knobs.ntffBytes,
    paddingKey: `${file.name}:${knobs.seed}:${knobs.run}`,
  });
}

function neffBytes(run, file) {
  const { configuration, settings } = run;
  const [graph] = file.graphs;
  const header = {
    kind: 'neff',
    graph,
    neff_id: graphIds(configuration, graph)[settings.layout],
    vnc: file.vnc,
    model: configuration.model,
    tensor_parallel_size: configuration.tensor_parallel_size,
    compiler_version: SIMULATED_VERSIONS.compiler,
  };
  return encodeSimFile('SIMNEFF', header, { minBytes: NEFF_BYTES, paddingKey: file.name });
}

function systemProfileBytes(run, file) {
  const kind = file.name.replace(/\.pb$/, '');
  const header = { kind, instance_id: run.instance, pid: process.pid, queries: run.knobs.queries };
  return encodeSimFile('SIMPB', header, { minBytes: PB_BYTES, paddingKey: kind });
}

/** Write the profile of one run. Returns the session folder and the paths written. */
export function writeProfile({ settings, knobs, configuration, drift, startedAt }) {
  const instance = instanceId(knobs.instanceType);
  const processDir = join(settings.outputDir, `${instance}_pid_${process.pid}`);
  const sessionDir =
    settings.layout === 'B' ? join(processDir, sessionTimestamp(startedAt)) : processDir;
  mkdirSync(sessionDir, { recursive: true });

  const run = { settings, knobs, configuration, drift, startedAt, instance };
  const files = profileFiles(settings.layout, configuration).filter(
    (file) => file.type !== 'pb' || settings.systemProfile,
  );
  // Layout A has one NEFF per graph (vnc null), layout B one per graph and NeuronCore.
  const neffNameOf = (graph, vnc) =>
    files.find(
      (f) => f.type === 'neff' && f.graphs[0] === graph && (f.vnc === null || f.vnc === vnc),
    ).name;
  const written = [];
  for (const file of files) {
    const bytes =
      file.type === 'ntff'
        ? ntffBytes(run, file, neffNameOf)
        : file.type === 'neff'
          ? neffBytes(run, file)
          : systemProfileBytes(run, file);
    writeFileSync(join(sessionDir, file.name), bytes);
    written.push(join(sessionDir, file.name));
  }
  return { sessionDir, files: written };
}
