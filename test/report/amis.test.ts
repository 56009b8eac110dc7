// `amis` output for one scenario, as a table and as JSON: AL2023 on 1.31, the arm64 image deprecating soon.
import { describe, expect, it } from 'vitest';
import type { ResolvedAmi } from '../../src/ami/verify.js';
import { amisJson, amisTable, type AmisResult } from '../../src/report/amis.js';

function ami(overrides: Partial<ResolvedAmi> = {}): ResolvedAmi {
  return {
    family: 'al2023',
    arch: 'amd64',
    variant: 'standard',
    kubernetesVersion: '1.31',
    release: 'v20241109',
    releaseVersion: '1.31.2-20241109',
    id: 'ami-0a1b2c3d4e5f60718',
    name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20241109',
    parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id',
    state: 'available',
    architecture: 'x86_64',
    deprecated: false,
    deprecationTime: '2026-11-09T04:12:00.000Z',
    creationDate: '2024-11-09T04:12:00.000Z',
    problems: [],
    usable: true,
    ...overrides,
  };
}

const result: AmisResult = {
  kubernetesVersion: '1.31',
  region: 'us-west-2',
  amis: [
    ami(),
    ami({
      arch: 'arm64',
      id: 'ami-0f9e8d7c6b5a41302',
      name: 'amazon-eks-node-al2023-arm64-standard-1.31-v20241109',
      parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id',
      architecture: 'arm64',
      deprecated: true,
      problems: ['will be deprecated on 2026-11-09 (in 8 days)'],
    }),
  ],
};

describe('amis report', () => {
  it('draws a kubectl-style table, marking the deprecated image in STATE', () => {
    expect(amisTable(result)).toMatchInlineSnapshot(`
      "FAMILY   ARCH    VARIANT    RELEASE     AMI-ID                  NAME                                                    STATE
      al2023   amd64   standard   v20241109   ami-0a1b2c3d4e5f60718   amazon-eks-node-al2023-x86_64-standard-1.31-v20241109   available
      al2023   arm64   standard   v20241109   ami-0f9e8d7c6b5a41302   amazon-eks-node-al2023-arm64-standard-1.31-v20241109    available,deprecated
      "
    `);
  });

  it('prints one JSON document, the documented keys first', () => {
    expect(amisJson(result)).toMatchInlineSnapshot(`
      "{
        "kubernetesVersion": "1.31",
        "region": "us-west-2",
        "amis": [
          {
            "family": "al2023",
            "arch": "amd64",
            "variant": "standard",
            "release": "v20241109",
            "id": "ami-0a1b2c3d4e5f60718",
            "name": "amazon-eks-node-al2023-x86_64-standard-1.31-v20241109",
            "parameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id",
            "state": "available",
            "deprecated": false,
            "releaseVersion": "1.31.2-20241109",
            "architecture": "x86_64",
            "deprecationTime": "2026-11-09T04:12:00.000Z",
            "creationDate": "2024-11-09T04:12:00.000Z",
            "problems": []
          },
          {
            "family": "al2023",
            "arch": "arm64",
            "variant": "standard",
            "release": "v20241109",
            "id": "ami-0f9e8d7c6b5a41302",
            "name": "amazon-eks-node-al2023-arm64-standard-1.31-v20241109",
            "parameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id",
            "state": "available",
            "deprecated": true,
            "releaseVersion": "1.31.2-20241109",
            "architecture": "arm64",
            "deprecationTime": "2026-11-09T04:12:00.000Z",
            "creationDate": "2024-11-09T04:12:00.000Z",
            "problems": [
              "will be deprecated on 2026-11-09 (in 8 days)"
            ]
          }
        ]
      }
      "
    `);
    expect(Object.keys(JSON.parse(amisJson(result)).amis[0]).slice(0, 9)).toEqual([
      'family',
      'arch',
      'variant',
      'release',
      'id',
      'name',
      'parameter',
      'state',
      'deprecated',
    ]);
  });

  it('prints only the header when nothing was resolved', () => {
    expect(amisTable({ ...result, amis: [] })).toBe('FAMILY   ARCH   VARIANT   RELEASE   AMI-ID   NAME   STATE\n');
  });
});
