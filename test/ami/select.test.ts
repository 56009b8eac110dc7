// Expanding --family/--arch/--variant/--release into queries: `all` skips what does not exist, naming it refuses.
import { describe, expect, it } from 'vitest';
import { amiQueries } from '../../src/ami/select.js';
import { UsageError } from '../../src/errors.js';
import type { AmiSelection } from '../../src/ami/select.js';
import { parseAmisOptions } from '../../src/cli/options.js';

// Through the real flag parser, so `expand` is what the CLI would set (the default --arch is `all`).
function selection(flags: Record<string, string>): AmiSelection {
  return parseAmisOptions({ to: '1.31', ...flags });
}

function rows(flags: Record<string, string>): string[] {
  return amiQueries(selection(flags)).map(
    (q) => `${q.family} ${q.kubernetesVersion} ${q.arch} ${q.variant} ${q.release}`,
  );
}

function refusal(flags: Record<string, string>): UsageError {
  try {
    amiQueries(selection(flags));
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}

describe('amiQueries', () => {
  it.each<[string, Record<string, string>, string[]]>([
    [
      'defaults: al2023, both arches, standard',
      {},
      ['al2023 1.31 amd64 standard latest', 'al2023 1.31 arm64 standard latest'],
    ],
    [
      '--variant neuron skips arm64, which has no neuron AMI',
      { variant: 'neuron' },
      ['al2023 1.31 amd64 neuron latest'],
    ],
    [
      '--family all skips Windows arm64 and Windows Server 2025 before 1.35',
      { family: 'all' },
      [
        'al2 1.31 amd64 standard latest',
        'al2 1.31 arm64 standard latest',
        'al2023 1.31 amd64 standard latest',
        'al2023 1.31 arm64 standard latest',
        'bottlerocket 1.31 amd64 standard latest',
        'bottlerocket 1.31 arm64 standard latest',
        'windows2019 1.31 amd64 standard latest',
        'windows2022 1.31 amd64 standard latest',
      ],
    ],
    [
      '--family all --variant all on 1.33 skips AL2 (none after 1.32)',
      { to: '1.33', family: 'all', variant: 'all', arch: 'arm64' },
      [
        'al2023 1.33 arm64 standard latest',
        'al2023 1.33 arm64 nvidia latest',
        'bottlerocket 1.33 arm64 standard latest',
        'bottlerocket 1.33 arm64 nvidia latest',
      ],
    ],
    [
      '--family al2 --variant all: one query per variant even where nvidia and neuron share the GPU AMI',
      { family: 'al2', variant: 'all' },
      [
        'al2 1.31 amd64 standard latest',
        'al2 1.31 amd64 nvidia latest',
        'al2 1.31 amd64 neuron latest',
        'al2 1.31 arm64 standard latest',
      ],
    ],
    [
      '--family all with a Bottlerocket release keeps only Bottlerocket',
      { family: 'all', release: 'v1.26.1' },
      ['bottlerocket 1.31 amd64 standard 1.26.1', 'bottlerocket 1.31 arm64 standard 1.26.1'],
    ],
    [
      '--family all with a dated release keeps AL2 and AL2023',
      { family: 'all', release: '20241109', arch: 'amd64' },
      ['al2 1.31 amd64 standard v20241109', 'al2023 1.31 amd64 standard v20241109'],
    ],
    ['Windows Server 2025 on 1.35', { to: 'v1.35', family: 'windows2025' }, ['windows2025 1.35 amd64 standard latest']],
  ])('%s', (_name, flags, expected) => {
    expect(rows(flags)).toEqual(expected);
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'AL2 on 1.33',
      { to: '1.33', family: 'al2' },
      'al2 has no EKS-optimized AMIs for Kubernetes 1.33: 1.32 was the last version with AL2 AMIs (Karpenter rejects the alias with UnsupportedAlias)',
    ],
    [
      'Windows Server 2025 before 1.35',
      { family: 'windows2025' },
      'windows2025 needs Kubernetes 1.35 or later (asked for 1.31)',
    ],
    [
      'a pinned Windows release',
      { family: 'windows2022', release: 'v20241109' },
      'windows2022 has no pinned releases: AWS publishes only the latest Windows AMI, and Karpenter accepts Windows aliases only as windows2022@latest',
    ],
    [
      'a Bottlerocket release for AL2023',
      { release: '1.26.1' },
      'al2023 releases look like vYYYYMMDD, e.g. v20241109; --release 1.26.1 names a Bottlerocket release',
    ],
    [
      'a dated release for Bottlerocket',
      { family: 'bottlerocket', release: 'v20241109' },
      'bottlerocket releases look like X.Y.Z, e.g. 1.26.1; --release v20241109 names a dated AL2/AL2023 release',
    ],
    [
      'neuron on arm64, both named',
      { arch: 'arm64', variant: 'neuron' },
      'no EKS-optimized AMI exists for al2023 arm64 neuron',
    ],
    [
      'Windows on arm64, both named',
      { family: 'al2023,windows2022', arch: 'arm64' },
      'no EKS-optimized AMI exists for windows2022 arm64 standard',
    ],
    [
      'a named family that the expanded arches leave with nothing',
      { family: 'windows2022', variant: 'nvidia' },
      '--family windows2022 matches no EKS-optimized AMI for Kubernetes 1.31 with the other flags given',
    ],
    [
      'a named arch that nothing under --family all has',
      { family: 'all', arch: 'arm64', variant: 'neuron' },
      '--arch arm64 matches no EKS-optimized AMI for Kubernetes 1.31 with the other flags given',
    ],
  ])('refuses %s', (_name, flags, message) => {
    expect(refusal(flags).message).toBe(message);
  });

  it('says which combinations exist when refusing one', () => {
    expect(refusal({ family: 'al2023,windows2022', arch: 'arm64' }).hint).toBe(
      'these exist: al2023: amd64 standard/nvidia/neuron, arm64 standard/nvidia; windows2022: amd64 standard, no arm64',
    );
    expect(refusal({ family: 'windows2019', release: 'v20241109' }).hint).toBe(
      'omit --release (or pass --release latest) to resolve the current Windows AMI; `render --pin id` pins it by ID',
    );
  });
});

describe('amiQueries with a release policy (--release latest~N, --min-age)', () => {
  it('keeps every pinnable family and leaves Windows out under --family all: it has no releases to choose from', () => {
    expect(rows({ family: 'all', arch: 'amd64', release: 'latest~1' })).toEqual([
      'al2 1.31 amd64 standard latest~1',
      'al2023 1.31 amd64 standard latest~1',
      'bottlerocket 1.31 amd64 standard latest~1',
    ]);
    expect(rows({ family: 'bottlerocket,al2023', arch: 'arm64', minAge: '7d' })).toEqual([
      'bottlerocket 1.31 arm64 standard latest',
      'al2023 1.31 arm64 standard latest',
    ]);
  });

  it.each<[Record<string, string>, string]>([
    [{ family: 'windows2022', release: 'latest~1' }, '--release latest~1'],
    [{ family: 'windows2019', minAge: '7d' }, '--min-age 7d'],
    [{ family: 'windows2022', release: 'latest~2', minAge: '36h' }, '--release latest~2 --min-age 36h'],
  ])('refuses Windows asked for by name: %o', (flags, asked) => {
    const family = flags.family!;
    const err = refusal(flags);
    expect(err.message).toBe(
      `${family} has no release to choose by ${asked}: AWS publishes only the latest Windows AMI, and Karpenter accepts Windows aliases only as ${family}@latest`,
    );
    expect(err.hint).toBe(
      `ask for ${family} with --release latest alone, or promote a tested Windows AMI with --amis-file`,
    );
  });
});
