// Progress through the phases of src/rollout/README.md, and what "done" requires.
import { describe, expect, it } from 'vitest';
import type { NodeClaimView, NodeView } from '../../src/karpenter/views.js';
import { applyChange, emptySnapshot } from '../../src/rollout/snapshot.js';
import { kubeletMinor, lastProgressAt, progressed, rolloutProgress, statusLineOf, track } from '../../src/rollout/track.js';
import { at, members, node, nodeClaim, nodeFor, scope, snapshotOf, T0 } from './factories.js';

// NodePool "general": three nodes on ami-old when the rollout starts.
const old = (name: string, o: Parameters<typeof nodeClaim>[0] = {}) => nodeClaim({ name, ...o });
const fresh = (name: string, o: Parameters<typeof nodeClaim>[0] = {}) => nodeClaim({ name, imageId: 'ami-new', ...o });
const start = [old('general-old01'), old('general-old02'), old('general-old03')];

/** The baseline from the first list, then the state of the cluster at a later moment. */
function later(claims: NodeClaimView[], nodes: NodeView[] = members(...claims).nodes) {
  const s = snapshotOf(members(...start));
  applyChange(s, { type: 'synced', kind: 'NodeClaim', items: claims });
  applyChange(s, { type: 'synced', kind: 'Node', items: nodes });
  return s;
}

const counts = (claims: NodeClaimView[], nodes?: NodeView[]) => {
  const { nodePools, done, message } = rolloutProgress(later(claims, nodes), scope(), at(10));
  const { name: _n, nodeClass: _c, message: _m, done: _d, ...c } = nodePools[0]!;
  return { ...c, done, message };
};

describe('rolloutProgress: the phases of one NodePool', () => {
  it.each<[string, NodeClaimView[], ReturnType<typeof counts>]>([
    [
      'pinned, nothing drifted yet',
      start,
      {
        total: 3,
        onTarget: 0,
        replaced: 0,
        remaining: 3,
        drifted: 0,
        disrupting: 0,
        launching: 0,
        initializing: 0,
        terminating: 0,
        done: false,
        message: 'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 3 nodes not drifted yet...',
      },
    ],
    [
      'drifted',
      start.map((c) => old(c.name, { drifted: true })),
      {
        total: 3,
        onTarget: 0,
        replaced: 0,
        remaining: 3,
        drifted: 3,
        disrupting: 0,
        launching: 0,
        initializing: 0,
        terminating: 0,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 3 drifted nodes waiting for disruption...',
      },
    ],
    [
      'disrupted, replacement created',
      [
        old('general-old01', { drifted: true, disruptionReason: true }),
        old('general-old02', { drifted: true }),
        old('general-old03', { drifted: true }),
        fresh('general-new01', { phase: 'created' }),
      ],
      {
        total: 4,
        onTarget: 0,
        replaced: 0,
        remaining: 3,
        drifted: 3,
        disrupting: 1,
        launching: 1,
        initializing: 0,
        terminating: 0,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 1 replacement launching, 2 drifted nodes waiting for disruption...',
      },
    ],
    [
      'replacement launched, not registered',
      [
        old('general-old01', { drifted: true, disruptionReason: true }),
        old('general-old02', { drifted: true }),
        old('general-old03', { drifted: true }),
        fresh('general-new01', { phase: 'launched' }),
      ],
      {
        total: 4,
        onTarget: 0,
        replaced: 0,
        remaining: 3,
        drifted: 3,
        disrupting: 1,
        launching: 1,
        initializing: 0,
        terminating: 0,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 1 replacement launching, 2 drifted nodes waiting for disruption...',
      },
    ],
    [
      'replacement registered, initializing',
      [
        old('general-old01', { drifted: true, disruptionReason: true }),
        old('general-old02', { drifted: true }),
        old('general-old03', { drifted: true }),
        fresh('general-new01', { phase: 'registered' }),
      ],
      {
        total: 4,
        onTarget: 0,
        replaced: 0,
        remaining: 3,
        drifted: 3,
        disrupting: 1,
        launching: 0,
        initializing: 1,
        terminating: 0,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 1 replacement initializing, 2 drifted nodes waiting for disruption...',
      },
    ],
    [
      'replacement initialized, old NodeClaim deleting',
      [
        old('general-old01', { drifted: true, disruptionReason: true, deleting: true }),
        old('general-old02', { drifted: true }),
        old('general-old03', { drifted: true }),
        fresh('general-new01'),
      ],
      {
        total: 3,
        onTarget: 1,
        replaced: 0,
        remaining: 3,
        drifted: 3,
        disrupting: 1,
        launching: 0,
        initializing: 0,
        terminating: 1,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 0 of 3 nodes replaced, 1 old node terminating, 2 drifted nodes waiting for disruption...',
      },
    ],
    [
      'old NodeClaim gone: one replaced',
      [old('general-old02', { drifted: true }), old('general-old03', { drifted: true }), fresh('general-new01')],
      {
        total: 3,
        onTarget: 1,
        replaced: 1,
        remaining: 2,
        drifted: 2,
        disrupting: 0,
        launching: 0,
        initializing: 0,
        terminating: 0,
        done: false,
        message:
          'Waiting for NodePool "general" drift: 1 of 3 nodes replaced, 2 drifted nodes waiting for disruption...',
      },
    ],
    [
      'all replaced',
      [fresh('general-new01'), fresh('general-new02'), fresh('general-new03')],
      {
        total: 3,
        onTarget: 3,
        replaced: 3,
        remaining: 0,
        drifted: 0,
        disrupting: 0,
        launching: 0,
        initializing: 0,
        terminating: 0,
        done: true,
        message: 'Rollout complete: 1 NodePool, 3 nodes on the target AMIs with kubelet 1.30',
      },
    ],
  ])('%s', (_name, claims, expected) => {
    expect(counts(claims)).toEqual(expected);
  });

  it('names each NodePool in its message and counts only its own NodeClaims', () => {
    const s = snapshotOf(members(old('general-old01'), old('gpu-old01', { nodePool: 'gpu', drifted: true })));
    const p = rolloutProgress(
      s,
      scope({
        nodePools: [
          { name: 'general', nodeClass: 'default' },
          { name: 'gpu', nodeClass: 'default' },
        ],
      }),
      at(1),
    );
    expect(p.nodePools.map((x) => [x.name, x.total, x.drifted, x.message])).toEqual([
      ['general', 1, 0, 'Waiting for NodePool "general" drift: 0 of 1 nodes replaced, 1 node not drifted yet...'],
      [
        'gpu',
        1,
        1,
        'Waiting for NodePool "gpu" drift: 0 of 1 nodes replaced, 1 drifted node waiting for disruption...',
      ],
    ]);
    expect(p.message).toBe(p.nodePools[0]!.message);
    expect(p.totals).toMatchObject({ total: 2, remaining: 2, drifted: 1 });
    // A staged run quotes its open stage's NodePool (gpu), not the first one left (general, held for a later stage).
    expect(statusLineOf(p, ['gpu'])).toBe(p.nodePools[1]!.message);
    expect(statusLineOf(p, ['other'])).toBe(p.message);
    expect(statusLineOf(p)).toBe(p.message);
  });

  it('says a rollback went back to the previous AMIs, NodePool by NodePool and at the end', () => {
    const claims = [fresh('general-new01'), fresh('general-new02'), fresh('general-new03')];
    const p = rolloutProgress(later(claims), scope({ back: true }), at(10));
    expect([p.nodePools[0]!.message, p.message]).toEqual([
      'NodePool "general" rolled back: 3 nodes on the previous AMIs with kubelet 1.30',
      'Rollback complete: 1 NodePool, 3 nodes back on the previous AMIs with kubelet 1.30',
    ]);
  });
});

describe('rolloutProgress: done', () => {
  const done = (claims: NodeClaimView[], nodes?: NodeView[]) => {
    const p = rolloutProgress(later(claims, nodes), scope(), at(30));
    return [p.done, p.nodePools[0]!.message];
  };
  const newClaims = [fresh('general-new01'), fresh('general-new02')];

  it.each<[string, NodeClaimView[], NodeView[] | undefined, [boolean, string]]>([
    [
      'every NodeClaim on target, Initialized, Ready, kubelet 1.30',
      newClaims,
      undefined,
      [true, 'NodePool "general" successfully rolled out: 2 nodes on the target AMIs with kubelet 1.30'],
    ],
    [
      'a target AMI whose kubelet is 1.29',
      newClaims,
      [nodeFor(newClaims[0]!), nodeFor(newClaims[1]!, { kubeletVersion: 'v1.29.8-eks-a1b2c3d' })],
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced, 1 node on kubelet 1.29, not 1.30...'],
    ],
    [
      'a Node without a kubelet version',
      newClaims,
      [nodeFor(newClaims[0]!), nodeFor(newClaims[1]!, { kubeletVersion: undefined })],
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced, 1 node on kubelet unknown, not 1.30...'],
    ],
    [
      'a Node not Ready',
      newClaims,
      [nodeFor(newClaims[0]!), nodeFor(newClaims[1]!, { ready: false })],
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced, 1 node not Ready...'],
    ],
    [
      'a Node missing',
      newClaims,
      [nodeFor(newClaims[0]!)],
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced, 1 node not Ready...'],
    ],
    [
      'an old NodeClaim still deleting',
      [...newClaims, old('general-old01', { deleting: true, drifted: true })],
      undefined,
      [false, 'Waiting for NodePool "general" drift: 2 of 3 nodes replaced, 1 old node terminating...'],
    ],
    // Consolidation deleting a new node also keeps the rollout from done: the NodePool is still moving.
    [
      'a NodeClaim on target being deleted',
      [...newClaims, fresh('general-new03', { deleting: true })],
      undefined,
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced...'],
    ],
    [
      'a replacement still initializing',
      [...newClaims, fresh('general-new03', { phase: 'registered' })],
      undefined,
      [false, 'Waiting for NodePool "general" drift: 3 of 3 nodes replaced, 1 replacement initializing...'],
    ],
    [
      'a NodePool with no NodeClaims',
      [],
      undefined,
      [true, 'NodePool "general" successfully rolled out: 0 nodes on the target AMIs with kubelet 1.30'],
    ],
  ])('%s', (_name, claims, nodes, expected) => {
    expect(done(claims, nodes)).toEqual(expected);
  });

  it('is never done before NodeClaims and Nodes are listed', () => {
    const s = emptySnapshot();
    expect(rolloutProgress(s, scope(), at(1))).toMatchObject({
      synced: false,
      done: false,
      message: 'Waiting for the first list of NodeClaims and Nodes...',
    });
    applyChange(s, { type: 'synced', kind: 'NodeClaim', items: [] });
    expect(rolloutProgress(s, scope(), at(1)).done).toBe(false);
    applyChange(s, { type: 'synced', kind: 'Node', items: [] });
    expect(rolloutProgress(s, scope(), at(1)).done).toBe(true);
  });

  it('takes the disruption taint as disrupting when there is no DisruptionReason (Karpenter before v1.2)', () => {
    const c = old('general-old01', { drifted: true });
    const s = later(
      [c],
      [nodeFor(c, { taints: [{ key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' }] })],
    );
    expect(rolloutProgress(s, scope(), at(1)).nodePools[0]!.disrupting).toBe(1);
  });
});

describe('kubeletMinor', () => {
  it.each([
    ['v1.30.4-eks-a737599', '1.30'],
    ['v1.29.15', '1.29'],
    ['1.31.0', '1.31'],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (version, minor) => {
    expect(kubeletMinor(version)).toBe(minor);
  });
});

describe('progress over time', () => {
  const drifted = start.map((c) => old(c.name, { drifted: true }));
  const reading = (claims: NodeClaimView[], now: Date) =>
    rolloutProgress(later(claims, [...members(...claims).nodes, node({ name: 'other' })]), scope(), now);

  it('starts the stall clock at the start of the rollout', () => {
    expect(track(undefined, later(start), scope(), at(1)).lastProgressAt).toEqual(T0);
  });

  it.each<[string, NodeClaimView[], NodeClaimView[], boolean]>([
    ['drift noticed', start, drifted, true],
    ['nothing changed', drifted, drifted, false],
    [
      'a replacement appears (not yet progress)',
      drifted,
      [...drifted, fresh('general-new01', { phase: 'created' })],
      false,
    ],
    [
      'a failed replacement disappears again',
      [...drifted, fresh('general-new01', { phase: 'created' })],
      drifted,
      false,
    ],
    ['a replacement initializes', drifted, [...drifted, fresh('general-new01')], true],
    ['an old NodeClaim is gone', drifted, drifted.slice(1), true],
  ])('%s → progressed %s', (_name, before, after, expected) => {
    const previous = reading(before, at(5));
    const next = reading(after, at(6));
    expect(progressed(previous, next)).toBe(expected);
    expect(lastProgressAt(previous, next, at(6))).toEqual(expected ? at(6) : T0);
  });

  it('carries lastProgressAt through readings that do not move', () => {
    const a = track(undefined, later(drifted), scope(), at(1));
    const b = track(a, later(drifted.slice(1)), scope(), at(4));
    const c = track(b, later([...drifted.slice(1), fresh('general-new02', { phase: 'launched' })]), scope(), at(9));
    expect([a.lastProgressAt, b.lastProgressAt, c.lastProgressAt]).toEqual([T0, at(4), at(4)]);
  });
});
