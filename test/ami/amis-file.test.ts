// The promoted file: the two documents karp-drift writes parse to one AMI per (family, arch, variant); anything else
// is refused with exit 2, naming the file and what is wrong with it.
import { describe, expect, it } from 'vitest';
import { parseAmisFile } from '../../src/ami/amis-file.js';
import { UsageError } from '../../src/errors.js';

const AMD = {
  arch: 'amd64',
  variant: 'standard',
  release: 'v20261023',
  id: 'ami-0587c36199afd55c0',
  name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20261023',
};
const ARM = {
  arch: 'arm64',
  variant: 'standard',
  release: 'v20261023',
  id: 'ami-0d0e471731632defa',
  name: 'amazon-eks-node-al2023-arm64-standard-1.31-v20261023',
};
// `amis -o json`, with the extra keys it writes.
const amisDoc = (overrides: Record<string, unknown> = {}) => ({
  kubernetesVersion: '1.31',
  region: 'us-east-1',
  amis: [AMD, ARM].map((a) => ({
    family: 'al2023',
    ...a,
    parameter: '/aws/service/...',
    state: 'available',
    deprecated: false,
    problems: [],
  })),
  ...overrides,
});
// `plan -o json`: the same target under two classes, and the source it records.
const planDoc = (overrides: Record<string, unknown> = {}) => ({
  cluster: { context: 'staging' },
  kubernetesVersion: '1.31',
  controlPlaneVersion: '1.31',
  nodeClasses: [
    { name: 'default', family: 'al2023', targets: [AMD, ARM] },
    { name: 'batch', family: 'al2023', targets: [AMD] },
  ],
  source: { kind: 'ssm', region: 'eu-west-1' },
  ...overrides,
});

describe('parseAmisFile', () => {
  it('keeps two images for one (family, arch, variant): refused only by a cluster that needs that AMI (promotion.ts)', () => {
    const other = { ...AMD, id: 'ami-0ffffffffffffffff' };
    const text = JSON.stringify(
      planDoc({
        nodeClasses: [
          { name: 'a', family: 'al2023', targets: [AMD] },
          { name: 'b', family: 'al2023', targets: [other, AMD] },
        ],
      }),
    );
    expect(parseAmisFile(text, 'plan.json').amis).toEqual([
      { family: 'al2023', ...AMD },
      { family: 'al2023', ...other },
    ]);
  });

  it('reads `amis -o json`: its minor, region and AMIs', () => {
    expect(parseAmisFile(JSON.stringify(amisDoc()), 'amis.json')).toEqual({
      kind: 'file',
      path: 'amis.json',
      shape: 'amis',
      kubernetesVersion: '1.31',
      region: 'us-east-1',
      amis: [
        { family: 'al2023', ...AMD },
        { family: 'al2023', ...ARM },
      ],
    });
  });

  it('reads `plan -o json`: each class family with its targets, once each, and source.region', () => {
    const file = parseAmisFile(JSON.stringify(planDoc()), 'plan.json');
    expect(file).toMatchObject({ shape: 'plan', kubernetesVersion: '1.31', region: 'eu-west-1' });
    expect(file.amis).toEqual([
      { family: 'al2023', ...AMD },
      { family: 'al2023', ...ARM },
    ]);
  });

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['amis -o json releasePolicy', amisDoc({ releasePolicy: { release: 'latest~1', minAge: '7d', families: [] } }), 'latest~1 --min-age 7d'],
    ['amis -o json releasePolicy without --min-age', amisDoc({ releasePolicy: { release: 'latest~2', minAge: null } }), 'latest~2'],
    ['plan -o json source.policy', planDoc({ source: { kind: 'ssm', region: 'eu-west-1', policy: { release: 'latest', minAge: '36h' } } }), 'latest --min-age 36h'],
    ['a plan that promoted such a file', planDoc({ source: { kind: 'file', region: 'eu-west-1', policy: 'latest~1' } }), 'latest~1'],
    ['a policy mangled by hand: the AMIs still promote, without the words', amisDoc({ releasePolicy: { release: 3 } }), undefined],
    ['no policy', amisDoc(), undefined],
  ])('keeps the release policy that chose the releases where they were tested: %s', (_name, doc, policy) => {
    const file = parseAmisFile(JSON.stringify(doc), 'tested.json');
    expect(file.policy).toBe(policy);
    expect(file.amis).toHaveLength(2);
  });

  it('reads the result document of a run that succeeded (--result-file, the GitHub Action json output): its plan', () => {
    const result = {
      apiVersion: 'karp-drift.io/v1',
      kind: 'Result',
      command: 'upgrade',
      result: 'succeeded',
      plan: planDoc(),
    };
    expect(parseAmisFile(JSON.stringify(result), 'result.json')).toEqual(
      parseAmisFile(JSON.stringify(planDoc()), 'result.json'),
    );
  });

  it.each([
    [
      { result: 'stalled', plan: planDoc() },
      'is the result of a karp-drift upgrade that ended stalled: its AMIs were not rolled out to the end there',
    ],
    [{ result: 'failed' }, 'ended failed with no plan'],
  ])('refuses the result of a run that did not succeed (%#)', (fields, message) => {
    const text = JSON.stringify({ kind: 'Result', command: 'upgrade', ...fields });
    expect(() => parseAmisFile(text, 'r.json')).toThrow(UsageError);
    expect(() => parseAmisFile(text, 'r.json')).toThrow(message);
  });

  it('a plan written before plans recorded their region has none (the IDs are then looked up by name)', () => {
    const { source: _source, ...old } = planDoc();
    expect(parseAmisFile(JSON.stringify(old), 'old-plan.json').region).toBeUndefined();
  });

  it.each<[string, string, RegExp]>([
    ['not JSON', 'export KUBECONFIG=x', /^--amis-file f\.json is not JSON \(/],
    [
      'a JSON array',
      '[1]',
      /^--amis-file f\.json is JSON but not the document `karp-drift amis -o json` or `karp-drift plan -o json` writes: it has neither "amis" nor "nodeClasses"$/,
    ],
    ['another document (status -o json)', JSON.stringify({ nodePools: [] }), /has neither "amis" nor "nodeClasses"/],
    [
      'amis without a region',
      JSON.stringify(amisDoc({ region: undefined })),
      /^--amis-file f\.json is not a valid `amis -o json` document: region is required$/,
    ],
    [
      'amis with no AMIs',
      JSON.stringify(amisDoc({ amis: [] })),
      /not a valid `amis -o json` document: amis lists no AMIs/,
    ],
    [
      'a family karp-drift does not know',
      JSON.stringify(amisDoc({ amis: [{ family: 'ubuntu', ...AMD }] })),
      /amis\[0\]\.family must be one of al2, al2023, .*, not the text "ubuntu"/,
    ],
    [
      'an ID that is not one',
      JSON.stringify(amisDoc({ amis: [{ family: 'al2023', ...AMD, id: 'i-123' }] })),
      /amis\[0\]\.id is not an AMI ID \(ami-\.\.\.\)/,
    ],
    [
      'a minor that is not one',
      JSON.stringify(amisDoc({ kubernetesVersion: 'latest' })),
      /kubernetesVersion is not a Kubernetes minor such as 1\.31/,
    ],
    [
      'a plan with no targets',
      JSON.stringify(planDoc({ nodeClasses: [] })),
      /^--amis-file f\.json is a plan with no target AMIs: it pins nothing to promote$/,
    ],
    [
      'a plan target without a name',
      JSON.stringify(
        planDoc({ nodeClasses: [{ name: 'x', family: 'al2023', targets: [{ ...AMD, name: undefined }] }] }),
      ),
      /nodeClasses\[0\]\.targets\[0\]\.name is required/,
    ],
    [
      'a name that is not an EKS-optimized name (a wildcard)',
      JSON.stringify(amisDoc({ amis: [{ family: 'al2023', ...AMD, name: 'amazon-eks-node-al2023-*' }] })),
      /^--amis-file f\.json: al2023 amd64 standard names "amazon-eks-node-al2023-\*", which is not an EKS-optimized al2023 AMI for Kubernetes 1\.31$/,
    ],
    [
      'a name for another minor than the file',
      JSON.stringify(amisDoc({ amis: [{ family: 'al2023', ...AMD, name: AMD.name.replace('1.31', '1.30') }] })),
      /not an EKS-optimized al2023 AMI for Kubernetes 1\.31/,
    ],
  ])('refuses %s (exit 2)', (_name, text, message) => {
    let error: unknown;
    try {
      parseAmisFile(text, 'f.json');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
    expect((error as UsageError).hint).toBeTruthy();
  });
});
