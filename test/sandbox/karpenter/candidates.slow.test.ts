// The simulated Karpenter's candidate validation (statenode.go ValidatePodsDisruptable, disruption/types.go
// NewCandidate), one drifted node at a time: which do-not-disrupt values and ages hold it, which pods' PDBs count,
// the DisruptionBlocked message in Karpenter v1.14's words, and the events Karpenter publishes as it reads a
// do-not-disrupt annotation. The same rules drive karp-drift's plan and diagnosis (karpenter/disruptable.ts).
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { blockReason } from '../../../src/sandbox/karpenter/disruption-candidates.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import { startSandbox } from '../../../src/sandbox/sandbox.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { NODECLAIMS } from './harness.js';

const NOW = new Date('2026-11-23T10:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString().replace('.000Z', 'Z');

interface PodShape {
  doNotDisrupt?: string;
  startedMinutesAgo?: number;
  owner?: { apiVersion: string; kind: string };
  tolerations?: Array<Record<string, string>>;
  ready?: boolean;
}

async function oneNode(o: { tgp?: boolean; nodeAnnotated?: boolean } = {}) {
  const scenario = parseScenario(
    [
      'name: candidates',
      'controlPlaneVersion: "1.30"',
      'nodeClasses: [{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
      `nodePools: [{ name: general, nodeClass: default, nodes: 1, arch: [amd64]${o.tgp ? ', terminationGracePeriod: 1h' : ''}${o.nodeAnnotated ? ', doNotDisruptNodes: 1' : ''} }]`,
    ].join('\n'),
    'inline',
  );
  const clock = new ManualClock(NOW);
  const sandbox = await startSandbox({ scenario, manualClock: clock });
  onTestFinished(() => sandbox.stop());
  const store = sandbox.kube.store;
  const claim = store.list(NODECLAIMS)[0]!;
  const node = store.list('nodes')[0]!;
  const ctx = sandbox.simulator.ctx;
  const addPod = (name: string, p: PodShape = {}): KubeObject =>
    store.create(
      'pods',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name,
          namespace: 'default',
          labels: { app: 'app' },
          ...(p.doNotDisrupt !== undefined ? { annotations: { 'karpenter.sh/do-not-disrupt': p.doNotDisrupt } } : {}),
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'app-5d8f7c9b6d', uid: 'u-rs', controller: true, ...p.owner }],
        },
        spec: {
          containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27' }],
          nodeName: node.metadata.name,
          ...(p.tolerations ? { tolerations: p.tolerations } : {}),
        },
        status: {
          phase: 'Running',
          startTime: minutesAgo(p.startedMinutesAgo ?? 10),
          conditions: [{ type: 'Ready', status: p.ready === false ? 'False' : 'True' }],
        },
      },
      { wholeObject: true, manager: 'test' },
    );
  const addPdb = (name: string, spec: Record<string, unknown>) =>
    store.create(
      'poddisruptionbudgets.policy',
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec },
      { manager: 'kubectl-create' },
    );
  const reason = () => {
    ctx.memory.pdbAllowed.clear();
    return blockReason(ctx, store.get(NODECLAIMS, claim.metadata.name!)!, store.get('nodes', node.metadata.name!)!);
  };
  const podEvents = () => ctx.events.published.filter((e) => e.kind === 'Pod').map((e) => `${e.reason}: ${e.message}`);
  return { addPod, addPdb, reason, podEvents };
}

describe('do-not-disrupt values and ages (IsDoNotDisruptActive), the pod 10 minutes old unless said', () => {
  const invalid = (detail: string) =>
    `InvalidDoNotDisruptAnnotation: Invalid karpenter.sh/do-not-disrupt annotation: ${detail}, ignoring annotation`;
  it.each<[string, string, number, boolean, string[]]>([
    ['"true"', 'true', 10, true, []],
    ['"True"', 'True', 10, false, [invalid('failed to parse "True" as a duration: time: invalid duration "True"')]],
    ['"yes"', 'yes', 10, false, [invalid('failed to parse "yes" as a duration: time: invalid duration "yes"')]],
    ['"false"', 'false', 10, false, [invalid('failed to parse "false" as a duration: time: invalid duration "false"')]],
    ['""', '', 10, false, [invalid('failed to parse "" as a duration: time: invalid duration ""')]],
    ['"30m", young', '30m', 10, true, ['DoNotDisruptUntil: The karpenter.sh/do-not-disrupt grace period will elapse at 2026-11-23T10:20:00Z']],
    ['"30m", expired', '30m', 40, false, ['DoNotDisruptGracePeriodElapsed: The karpenter.sh/do-not-disrupt grace period has elapsed, pod is now disruptable']],
    ['"0s"', '0s', 10, false, [invalid('duration "0s" must be positive')]],
    ['"-5m"', '-5m', 10, false, [invalid('duration "-5m" must be positive')]],
    ['"garbage"', 'garbage', 10, false, [invalid('failed to parse "garbage" as a duration: time: invalid duration "garbage"')]],
  ])('%s', async (_name, value, age, holds, events) => {
    const n = await oneNode();
    n.addPod('app-1', { doNotDisrupt: value, startedMinutesAgo: age });
    expect(n.reason()).toBe(holds ? 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/app-1)' : undefined);
    expect(n.podEvents()).toEqual(events);
  });
});

describe('which pods count: do-not-disrupt on every active pod, PDBs on evictable pods only', () => {
  const daemonSet = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
  const mirror = { apiVersion: 'v1', kind: 'Node' };
  const tolerateAll = [{ operator: 'Exists' }];
  const tolerateDisrupted = [{ key: 'karpenter.sh/disrupted', operator: 'Exists', effect: 'NoSchedule' }];
  const otherToleration = [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }];
  const blocked = 'Pdb prevents pod evictions (PodDisruptionBudget=[default/app])';
  it.each<[string, PodShape, Record<string, unknown>, string | undefined]>([
    ['an ordinary pod', {}, {}, blocked],
    ['a DaemonSet pod that tolerates everything', { owner: daemonSet, tolerations: tolerateAll }, {}, undefined],
    ['a DaemonSet pod that tolerates karpenter.sh/disrupted', { owner: daemonSet, tolerations: tolerateDisrupted }, {}, undefined],
    ['a DaemonSet pod with only the usual DaemonSet tolerations', { owner: daemonSet, tolerations: otherToleration }, {}, blocked],
    ['a mirror (static) pod', { owner: mirror }, {}, undefined],
    ['an unready pod under an AlwaysAllow PDB', { ready: false }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' }, undefined],
    ['an unready pod under an IfHealthyBudget PDB', { ready: false }, { unhealthyPodEvictionPolicy: 'IfHealthyBudget' }, blocked],
    [
      'a do-not-disrupt DaemonSet pod that tolerates everything',
      { owner: daemonSet, tolerations: tolerateAll, doNotDisrupt: 'true' },
      {},
      'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/app-1)',
    ],
    ['a do-not-disrupt mirror pod', { owner: mirror, doNotDisrupt: 'true' }, {}, 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/app-1)'],
  ])('%s', async (_name, shape, policy, expected) => {
    const n = await oneNode();
    n.addPod('app-1', shape);
    n.addPdb('app', { minAvailable: 1, selector: { matchLabels: { app: 'app' } }, ...policy });
    expect(n.reason()).toBe(expected);
  });

  it('a pod under two PDBs: the multiple-PDB message, naming both', async () => {
    const n = await oneNode();
    n.addPod('app-1');
    n.addPdb('app', { maxUnavailable: 1, selector: { matchLabels: { app: 'app' } } });
    n.addPdb('app-all', { maxUnavailable: 1, selector: {} });
    expect(n.reason()).toBe('Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/app default/app-all])');
  });

  it('the node annotated "true": blocked whatever the NodeClaim says', async () => {
    const n = await oneNode({ tgp: true, nodeAnnotated: true });
    expect(n.reason()).toBe('Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation');
  });

  it('a NodeClaim with its own terminationGracePeriod: pod-level blockers do not hold drift', async () => {
    const n = await oneNode({ tgp: true });
    n.addPod('app-1', { doNotDisrupt: 'true' });
    n.addPdb('app', { minAvailable: 1, selector: { matchLabels: { app: 'app' } } });
    expect(n.reason()).toBeUndefined();
  });
});
