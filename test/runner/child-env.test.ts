// The environment of pull-request code: what the runner owns stays out, and so do the
// variables that lead to a daemon's socket (issue 51).
import { describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/runner/child-env.js';

describe('childEnvironment', () => {
  it('drops the variables that name an agent or a daemon socket of the runner user', () => {
    const child = childEnvironment({
      PATH: '/usr/bin',
      HOME: '/home/runner',
      SSH_AUTH_SOCK: '/tmp/ssh-XXXX/agent.42',
      SSH_AGENT_PID: '42',
      GPG_AGENT_INFO: '/run/user/1000/gnupg/S.gpg-agent:0:1',
      GNOME_KEYRING_CONTROL: '/run/user/1000/keyring',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      XDG_RUNTIME_DIR: '/run/user/1000',
      TMUX: '/tmp/tmux-1000/default,123,0',
      NOTIFY_SOCKET: '/run/systemd/notify',
      HF_HOME: '/data/hf',
    });
    expect(child).toEqual({ PATH: '/usr/bin', HOME: '/home/runner', HF_HOME: '/data/hf' });
  });

  it.each([
    ['unix:///var/run/docker.sock', false],
    ['UNIX:///run/user/1000/docker.sock', false],
    ['/var/run/docker.sock', false],
    ['', false],
    ['tcp://10.0.0.5:2376', true],
    ['ssh://builder@10.0.0.5', true],
  ])('DOCKER_HOST and CONTAINER_HOST %j pass: %s', (value, passes) => {
    const child = childEnvironment({ DOCKER_HOST: value, CONTAINER_HOST: value });
    expect(Object.keys(child)).toEqual(passes ? ['DOCKER_HOST', 'CONTAINER_HOST'] : []);
  });

  it('still drops the runner namespaces and the gh tokens, and passes the rest', () => {
    const child = childEnvironment({
      GITHUB_SHA: 'abc',
      GITHUB_ENV: '/runner/_temp/set_env',
      'INPUT_GITHUB-TOKEN': 'ghs_x',
      GH_TOKEN: 'ghs_y',
      SSH_CONNECTION: '10.0.0.1 22 10.0.0.2 22',
      UNSET: undefined,
    });
    expect(child).toEqual({ GITHUB_SHA: 'abc', SSH_CONNECTION: '10.0.0.1 22 10.0.0.2 22' });
  });
});

describe('the baseline store secret', () => {
  it('never reaches pull-request code, as the variable or as the input', () => {
    const child = childEnvironment({
      PATH: '/usr/bin',
      PERF_GATE_POSTGRES_URL: 'postgres://gate:pw@db/perf',
      'INPUT_BASELINE-POSTGRES-URL': 'postgres://gate:pw@db/perf',
    });
    expect(child).toEqual({ PATH: '/usr/bin' });
  });
});
