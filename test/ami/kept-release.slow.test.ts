// resolveAmiQueries with a family a staged rollout under way keeps (plan/kept-releases.ts), through the real SDK against
// the sandbox's SSM and EC2: the kept family is resolved at exactly its release, never by the policy, and what the
// policy (or `latest`) would pin now is reported beside it. Only Date is faked, so "now" sits a known time after the
// catalog's releases.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveAmiQueries } from '../../src/ami/resolve.js';
import type { AmiQuery } from '../../src/ami/parameters.js';
import type { Logger } from '../../src/logger.js';
import { seriesReleases } from '../../src/sandbox/aws/lookup.js';
import { offlineAwsEnv, sandboxAws as sandbox } from './aws-sandbox.js';

const DAY = 86_400_000;

beforeEach(() => {
  offlineAwsEnv();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

const AL2023 = { family: 'al2023', arch: 'amd64', variant: 'standard', kubernetesVersion: '1.34' } as const;
const BOTTLEROCKET = { family: 'bottlerocket', arch: 'arm64', variant: 'standard', kubernetesVersion: '1.34' } as const;

describe('resolveAmiQueries with a kept family', () => {
  it('with a policy: the kept family at its release, the policy choosing for the others, its choice for the kept one reported', async () => {
    const aws = await sandbox();
    const al2023 = seriesReleases(aws.catalog, AL2023);
    const bottlerocket = seriesReleases(aws.catalog, BOTTLEROCKET);
    const kept = al2023.at(-3)!.release;
    const lines: string[] = [];
    const log: Logger = { info: (l) => lines.push(l), warn: () => {}, debug: () => {} };
    const queries: AmiQuery[] = [
      { ...AL2023, release: kept },
      { ...BOTTLEROCKET, release: 'latest~1' },
    ];
    const resolved = await resolveAmiQueries(queries, { region: 'us-west-2' }, log, {
      policy: { behind: 1 },
      kept: [{ family: 'al2023', release: kept }],
    });
    expect(resolved.amis.map((a) => `${a.family} ${a.release} ${a.id}`)).toEqual([
      `al2023 ${kept} ${al2023.at(-3)!.imageId}`,
      `bottlerocket ${bottlerocket.at(-2)!.release} ${bottlerocket.at(-2)!.imageId}`,
    ]);
    expect(resolved.policy?.families.map((f) => f.family)).toEqual(['bottlerocket']);
    expect(resolved.kept).toEqual([{ family: 'al2023', release: kept, newer: al2023.at(-2)!.release }]);
    expect(lines.filter((l) => l.startsWith('Release policy'))).toEqual([expect.stringMatching(/^Release policy latest~1: bottlerocket /)]);
  });

  it('a policy that cannot choose for the kept family (no release old enough) does not stop the run: newer is null', async () => {
    const aws = await sandbox();
    const al2023 = seriesReleases(aws.catalog, AL2023);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(al2023.at(-1)!.created.getTime() + 3 * DAY);
    const log: Logger = { info: () => {}, warn: () => {}, debug: () => {} };
    const kept = al2023.at(-2)!.release;
    const resolved = await resolveAmiQueries([{ ...AL2023, release: kept }], { region: 'us-west-2' }, log, {
      policy: { behind: 0, minAge: { text: '1000d', ms: 1000 * DAY } },
      kept: [{ family: 'al2023', release: kept }],
    });
    expect(resolved.amis.map((a) => a.release)).toEqual([kept]);
    expect(resolved.kept).toEqual([{ family: 'al2023', release: kept, newer: null }]);
  });

  it('without a policy: what `latest` names now, from the recommended parameter read alongside', async () => {
    const aws = await sandbox();
    const al2023 = seriesReleases(aws.catalog, AL2023);
    const log: Logger = { info: () => {}, warn: () => {}, debug: () => {} };
    const kept = al2023.at(-2)!.release;
    const resolved = await resolveAmiQueries([{ ...AL2023, release: kept }], { region: 'us-west-2' }, log, {
      kept: [{ family: 'al2023', release: kept }],
    });
    expect(resolved.amis.map((a) => a.release)).toEqual([kept]);
    expect(resolved.kept).toEqual([{ family: 'al2023', release: kept, newer: al2023.at(-1)!.release }]);
    // One GetParameters round: the recommended release is read with the kept one, not in a call of its own.
    expect(aws.requests.filter((r) => r.operation === 'GetParameters')).toHaveLength(1);
  });
});
