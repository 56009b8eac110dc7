// --release latest~N and --min-age through the real SDK against the sandbox's SSM and EC2 (GetParametersByPath on the
// release folders, DescribeImages for CreationDate): for AL2023, Bottlerocket and a GPU variant. Only Date is faked,
// so "now" can sit a known time after the catalog's releases; the sockets and timers are real.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveAmis } from '../../src/ami/resolve.js';
import { RuntimeFailure, UsageError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { parseAmisOptions } from '../../src/cli/options.js';
import { seriesReleases } from '../../src/sandbox/aws/lookup.js';
import { offlineAwsEnv, sandboxAws as sandbox } from './aws-sandbox.js';
import { failure } from './failure.js';
import type { AmiFamily, Arch, Variant } from '../../src/ami/families.js';

const DAY = 86_400_000;
const log: Logger = { info: () => {}, warn: () => {}, debug: () => {} };

beforeEach(() => {
  offlineAwsEnv();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

// What each case asks for, and one series of it whose catalog releases say what the policy must choose.
const CASES: Array<[string, Record<string, string>, { family: AmiFamily; arch: Arch; variant: Variant }]> = [
  ['AL2023', { family: 'al2023' }, { family: 'al2023', arch: 'arm64', variant: 'standard' }],
  ['Bottlerocket', { family: 'bottlerocket' }, { family: 'bottlerocket', arch: 'amd64', variant: 'standard' }],
  ['AL2023 nvidia', { family: 'al2023', variant: 'nvidia' }, { family: 'al2023', arch: 'amd64', variant: 'nvidia' }],
  ['Bottlerocket nvidia', { family: 'bottlerocket', variant: 'nvidia', arch: 'arm64' }, { family: 'bottlerocket', arch: 'arm64', variant: 'nvidia' }],
];

describe('release policy against the sandbox catalog (Kubernetes 1.34)', () => {
  it.each(CASES)('%s: --release latest~1 pins the release before the newest, listed by GetParametersByPath', async (_name, flags, series) => {
    const aws = await sandbox();
    const releases = seriesReleases(aws.catalog, { ...series, kubernetesVersion: '1.34' });
    const [previous, newest] = releases.slice(-2);
    const { amis, policy } = await resolveAmis(parseAmisOptions({ to: '1.34', ...flags, release: 'latest~1' }), { region: 'us-west-2' }, log);

    const ami = amis.find((a) => a.arch === series.arch && a.variant === series.variant)!;
    expect([ami.release, ami.id, ami.name]).toEqual([previous!.release, previous!.imageId, previous!.imageName]);
    expect(new Set(amis.map((a) => a.release))).toEqual(new Set([previous!.release]));
    expect(policy).toMatchObject({
      release: 'latest~1',
      minAge: null,
      families: [{ family: series.family, release: previous!.release, newest: { release: newest!.release }, listed: releases.length }],
    });
    const listed = aws.requests.filter((r) => r.operation === 'GetParametersByPath');
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r) => r.params.Recursive === true && r.status === 200)).toBe(true);
  });

  it.each(CASES)('%s: --min-age 7d skips a release 3 days old, and takes it at 8 days', async (_name, flags, series) => {
    const aws = await sandbox();
    const [previous, newest] = seriesReleases(aws.catalog, { ...series, kubernetesVersion: '1.34' }).slice(-2);
    const options = parseAmisOptions({ to: '1.34', ...flags, minAge: '7d' });

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(newest!.created.getTime() + 3 * DAY);
    const young = await resolveAmis(options, { region: 'us-west-2' }, log);
    expect(young.amis.map((a) => a.release)).toContain(previous!.release);
    expect(young.policy?.families[0]).toMatchObject({ release: previous!.release, newest: { release: newest!.release } });

    vi.setSystemTime(newest!.created.getTime() + 8 * DAY);
    const old = await resolveAmis(options, { region: 'us-west-2' }, log);
    expect(old.amis.map((a) => a.release)).toContain(newest!.release);
    // Dated by EC2: the policy records the CreationDate (later than the day a dated name carries).
    expect(old.policy?.families[0]?.published).toBe(newest!.created.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  });

  it('--release latest~1 --min-age 7d: one behind the newest that is a week old', async () => {
    const aws = await sandbox();
    const releases = seriesReleases(aws.catalog, { family: 'al2023', arch: 'amd64', variant: 'standard', kubernetesVersion: '1.34' });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(releases.at(-1)!.created.getTime() + 3 * DAY);
    const { amis } = await resolveAmis(parseAmisOptions({ to: '1.34', arch: 'amd64', release: 'latest~1', minAge: '7d' }), { region: 'us-west-2' }, log);
    expect(amis.map((a) => a.release)).toEqual([releases.at(-3)!.release]);
  });

  it('refuses when no release is old enough, naming the family, the newest and its age; nothing is resolved', async () => {
    const aws = await sandbox();
    const newest = seriesReleases(aws.catalog, { family: 'bottlerocket', arch: 'amd64', variant: 'standard', kubernetesVersion: '1.34' }).at(-1)!;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(newest.created.getTime() + 3 * DAY);
    const err = await failure(
      resolveAmis(parseAmisOptions({ to: '1.34', family: 'bottlerocket', minAge: '1000d' }), { region: 'us-west-2' }, log),
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(
      new RegExp(`^--min-age 1000d: no bottlerocket release for Kubernetes 1\\.34 is 1000d old yet: the newest, ${newest.release.replaceAll('.', '\\.')}, was published \\S+ \\(3d old\\)`),
    );
    expect(aws.requests.some((r) => r.operation === 'GetParameters')).toBe(false);
  });

  it('an identity without ssm:GetParametersByPath gets exit 1 naming that action', async () => {
    const aws = await sandbox();
    aws.faults.denyAccess({ service: 'ssm', operation: 'GetParametersByPath' });
    const err = await failure(resolveAmis(parseAmisOptions({ to: '1.34', release: 'latest~1' }), { region: 'us-west-2' }, log));
    expect(err).toBeInstanceOf(RuntimeFailure);
    expect(err.message).toBe('access denied: SSM GetParametersByPath in us-west-2 (AccessDeniedException)');
    expect(err.hint).toContain('allow ssm:GetParametersByPath on arn:aws:ssm:us-west-2::parameter/aws/service/*');
  });
});
