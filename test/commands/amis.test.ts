// The amis command end to end over mocked SSM and EC2: results on stdout, notes and warnings on stderr.
import { DescribeImagesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/cli/program.js';
import { amis } from '../../src/commands/amis.js';
import type { GlobalOptions } from '../../src/commands/context.js';
import { parseAmisOptions } from '../../src/cli/options.js';

const ssm = mockClient(SSMClient);
const ec2 = mockClient(EC2Client);
const PREFIX = '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended';

beforeEach(() => {
  ssm.reset();
  ec2.reset();
  ssm.on(GetParametersCommand).resolves({
    Parameters: [
      { Name: `${PREFIX}/image_id`, Value: 'ami-0123456789abcdef0' },
      { Name: `${PREFIX}/release_version`, Value: '1.31.2-20241109' },
      { Name: `${PREFIX}/image_name`, Value: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20241109' },
    ],
  });
  ec2.on(DescribeImagesCommand).resolves({
    Images: [
      {
        ImageId: 'ami-0123456789abcdef0',
        Name: 'amazon-eks-node-al2023-x86_64-standard-1.31-v20241109',
        State: 'available',
        Architecture: 'x86_64',
        DeprecationTime: '2025-11-09T04:12:00.000Z',
      },
    ],
  });
});

async function runAmis(flags: Record<string, string>, globals: Partial<GlobalOptions> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CommandContext = {
    globals: { output: 'human', color: false, verbose: false, quiet: false, region: 'us-west-2', ...globals },
    io: { out: (s) => void out.push(s), err: (s) => void err.push(s), interactive: false },
    env: {},
    signal: new AbortController().signal,
  };
  await amis(parseAmisOptions({ arch: 'amd64', ...flags }), ctx);
  return { stdout: out.join(''), stderr: err.join('') };
}

describe('amis', () => {
  it('prints the table on stdout and the patch note, progress and deprecation warning on stderr', async () => {
    const { stdout, stderr } = await runAmis({ to: '1.31.4' });
    expect(stdout).toMatchInlineSnapshot(`
      "FAMILY   ARCH    VARIANT    RELEASE     AMI-ID                  NAME                                                    STATE
      al2023   amd64   standard   v20241109   ami-0123456789abcdef0   amazon-eks-node-al2023-x86_64-standard-1.31-v20241109   available,deprecated
      "
    `);
    expect(stderr).toBe(
      '--to 1.31.4: EKS-optimized AMIs are published per minor; using 1.31\n' +
        'Resolving 1 EKS-optimized AMI(s) for Kubernetes 1.31 in us-west-2\n' +
        'warning: ami-0123456789abcdef0 (al2023 amd64 standard, amazon-eks-node-al2023-x86_64-standard-1.31-v20241109): deprecated since 2025-11-09; Karpenter can still launch it, but pin a newer release soon\n',
    );
  });

  it('prints one JSON document with -o json, and only warnings with -q', async () => {
    const { stdout, stderr } = await runAmis({ to: '1.31.4' }, { output: 'json', quiet: true, region: 'eu-west-1' });
    expect(JSON.parse(stdout)).toMatchObject({
      kubernetesVersion: '1.31',
      region: 'eu-west-1',
      amis: [
        {
          family: 'al2023',
          arch: 'amd64',
          variant: 'standard',
          release: 'v20241109',
          id: 'ami-0123456789abcdef0',
          state: 'available',
          deprecated: true,
        },
      ],
    });
    expect(stderr).toMatch(/^warning: ami-0123456789abcdef0 .*deprecated since 2025-11-09/);
    expect(stderr.split('\n')).toHaveLength(2);
  });
});
