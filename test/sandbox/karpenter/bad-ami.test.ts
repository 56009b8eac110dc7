// Which NodeClaims a bad AMI reaches (by status.imageID and class), and the kubelet's crash-loop back-off.
import { describe, expect, it } from 'vitest';
import { badAmiSymptom } from '../../../src/sandbox/karpenter/bad-ami.js';
import type { SimContext } from '../../../src/sandbox/karpenter/context.js';
import { backOffSeconds, goSeconds } from '../../../src/sandbox/karpenter/crash-loop.js';
import { DueQueue } from '../../../src/sandbox/karpenter/due-queue.js';

const ctx = (nodeClasses?: string[]) =>
  ({
    faults: {
      badAmi: {
        symptom: 'crash-loop',
        imageIds: new Set(['ami-bad-amd64', 'ami-bad-arm64']),
        ...(nodeClasses ? { nodeClasses: new Set(nodeClasses) } : {}),
        afterSeconds: 60,
      },
    },
  }) as unknown as SimContext;

const claim = (imageID: string | undefined, nodeClass = 'default') => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'general-abcde' },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: nodeClass } },
  status: imageID ? { imageID } : {},
});

describe('badAmiSymptom', () => {
  it.each([
    ['launched from the bad release', claim('ami-bad-arm64'), undefined, 'crash-loop'],
    ['launched from another release', claim('ami-good'), undefined, undefined],
    ['not launched yet', claim(undefined), undefined, undefined],
    ['of a class the fault names', claim('ami-bad-amd64', 'default'), ['default'], 'crash-loop'],
    ['of a class the fault does not name', claim('ami-bad-amd64', 'other'), ['default'], undefined],
  ])('a NodeClaim %s', (_title, nodeClaim, nodeClasses, expected) => {
    expect(badAmiSymptom(ctx(nodeClasses), nodeClaim)).toBe(expected);
  });

  it('is nothing without the fault', () => {
    expect(badAmiSymptom({ faults: {} } as unknown as SimContext, claim('ami-bad-amd64'))).toBeUndefined();
  });
});

describe("the kubelet's crash-loop back-off", () => {
  it.each([
    [1, 10, '10s'],
    [2, 20, '20s'],
    [3, 40, '40s'],
    [4, 80, '1m20s'],
    [5, 160, '2m40s'],
    [6, 300, '5m0s'],
    [20, 300, '5m0s'],
  ])('after restart %i waits %i s, written %s', (restartCount, seconds, text) => {
    expect(backOffSeconds(restartCount)).toBe(seconds);
    expect(goSeconds(seconds)).toBe(text);
  });

  it('takes restarts from the queue as they fall due, earliest first', () => {
    const queue = new DueQueue<string>();
    for (const [at, item] of [
      [30, 'c'],
      [10, 'a'],
      [20, 'b'],
      [40, 'd'],
      [10, 'a2'],
    ] as const)
      queue.push(at, item);
    const due: string[] = [];
    for (let item = queue.popDue(30); item !== undefined; item = queue.popDue(30)) due.push(item);
    expect(due.slice(0, 2).sort()).toEqual(['a', 'a2']);
    expect(due.slice(2)).toEqual(['b', 'c']);
    expect(queue.size).toBe(1);
    expect(queue.popDue(39)).toBeUndefined();
  });
});
