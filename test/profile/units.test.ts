import { describe, expect, it } from 'vitest';
import { profileUnits } from '../../src/profile/units.js';

describe('profileUnits', () => {
  it('pairs layout A NTFFs with their NEFF by id', () => {
    const dir = '/p/i-0abc_pid_1';
    const units = profileUnits({
      ntffFiles: [
        `${dir}/111_instid_0_vnc_0.ntff`,
        `${dir}/111_instid_0_vnc_1.ntff`,
        `${dir}/222_instid_0_vnc_0.ntff`,
      ],
      neffFiles: [`${dir}/neff_111.neff`, `${dir}/neff_222.neff`],
      emptyNtffFiles: [],
      totalBytes: 0,
    });
    expect(units).toEqual([
      { kind: 'pair', neff: `${dir}/neff_111.neff`, ntff: `${dir}/111_instid_0_vnc_0.ntff` },
      { kind: 'pair', neff: `${dir}/neff_111.neff`, ntff: `${dir}/111_instid_0_vnc_1.ntff` },
      { kind: 'pair', neff: `${dir}/neff_222.neff`, ntff: `${dir}/222_instid_0_vnc_0.ntff` },
    ]);
  });

  it('pairs layout B by core, and summarises a folder whole when the NEFF is ambiguous', () => {
    const one = '/p/i-0abc_pid_1/20261122T010203';
    const many = '/p/i-0abc_pid_2/20261122T010204';
    const units = profileUnits({
      ntffFiles: [`${one}/profile_nc_0_session_0.ntff`, `${many}/profile_nc_0_session_0.ntff`],
      neffFiles: [
        `${one}/neff_aaa_vnc_0.neff`,
        `${many}/neff_bbb_vnc_0.neff`,
        `${many}/neff_ccc_vnc_0.neff`,
      ],
      emptyNtffFiles: [],
      totalBytes: 0,
    });
    expect(units).toEqual([
      {
        kind: 'pair',
        neff: `${one}/neff_aaa_vnc_0.neff`,
        ntff: `${one}/profile_nc_0_session_0.ntff`,
      },
      { kind: 'session', dir: many },
    ]);
  });

  it('leaves out empty NTFF files', () => {
    const dir = '/p/s';
    const units = profileUnits({
      ntffFiles: [`${dir}/1_instid_0_vnc_0.ntff`],
      neffFiles: [`${dir}/neff_1.neff`],
      emptyNtffFiles: [`${dir}/1_instid_0_vnc_0.ntff`],
      totalBytes: 0,
    });
    expect(units).toEqual([]);
  });
});
