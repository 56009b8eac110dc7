// What `wait` (and an upgrade that paces nothing) says when every node is on target but karp-drift's holds are still
// on the NodePools: each thing left, by whom, and the one `resume` that puts the NodePools back as they were.
import { describe, expect, it } from 'vitest';
import type { NodePoolView, NodeView } from '../../src/karpenter/views.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { holdsLeft, holdsLeftMessage, type HoldLeft } from '../../src/report/holds-left.js';
import { switchBudget } from '../../src/apis/budget-hold.js';
import { at, iso, node, nodePool } from '../rollout/factories.js';

const RUN = '3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f';
const OTHER = '77ab12cd-0000-4000-8000-000000000000';
const hold: Budget = { nodes: '0', reasons: ['Drifted'] };
const record = (o: Record<string, unknown> = {}) => JSON.stringify({ runId: RUN, since: iso(at(8)), budgets: [{ nodes: '20%' }], ...o });
const held = (name: string, annotation: string, budgets: Budget[]): NodePoolView =>
  nodePool({ name, annotations: { 'karp-drift.io/drift-hold': annotation }, budgets });
const closedBudget: Budget = { nodes: '0', reasons: ['Drifted'], schedule: '0 16 * * *', duration: '23h' };
const heldNode = (name: string, pool: string, runId: string): NodeView => node({ name, nodePool: pool, doNotDisrupt: true, heldBy: runId });

describe('holdsLeft', () => {
  it.each<[string, NodePoolView[], NodeView[], HoldLeft[]]>([
    ['nothing held: nothing left', [nodePool({ name: 'general' })], [node({ name: 'n1', nodePool: 'general' })], []],
    [
      '`pause` after the rollout: a budget at 0',
      [held('general', record(), [{ nodes: '20%' }, hold])],
      [],
      [{ nodePool: 'general', runIds: [RUN], budget: { allowance: 0, everyReason: false } }],
    ],
    [
      'a staged run killed after its last wave: its last budget still allows 2, its switch not yet fired',
      [held('general', record(), [{ nodes: '20%' }, switchBudget(at(30)), { nodes: '2', reasons: ['Drifted'] }])],
      [],
      [{ nodePool: 'general', runIds: [RUN], budget: { allowance: 2, everyReason: false } }],
    ],
    [
      "… and once its dead man's switch fired",
      [held('general', record(), [{ nodes: '20%' }, switchBudget(at(15)), { nodes: '2', reasons: ['Drifted'] }])],
      [],
      [{ nodePool: 'general', runIds: [RUN], budget: { allowance: 2, everyReason: false, switchedAt: at(15).toISOString() } }],
    ],
    [
      "a windowed rollout never released: its hold and the windows' budgets",
      [held('general', record({ windows: [closedBudget], windowFlags: ["--window '0 15 * * */1h'"], pausedBy: 'window' }), [{ nodes: '20%' }, closedBudget, hold])],
      [],
      [{ nodePool: 'general', runIds: [RUN], budget: { allowance: 0, everyReason: false }, windows: ["--window '0 15 * * */1h'"] }],
    ],
    [
      'node holds (another run), and a record whose budget a GitOps sync took away; NodePools by name',
      [nodePool({ name: 'batch' }), held('arm', record(), [{ nodes: '20%' }])],
      [heldNode('b1', 'batch', OTHER), heldNode('b2', 'batch', OTHER), node({ name: 'b3', nodePool: 'batch' })],
      [
        { nodePool: 'arm', runIds: [RUN], budget: { everyReason: false } },
        { nodePool: 'batch', runIds: [OTHER], nodes: 2 },
      ],
    ],
    ['an unreadable record', [nodePool({ name: 'general', annotations: { 'karp-drift.io/drift-hold': '{' } })], [], [{ nodePool: 'general', runIds: [], unreadable: 'annotation karp-drift.io/drift-hold is not JSON' }]],
  ])('%s', (_name, pools, nodes, expected) => {
    expect(holdsLeft(pools, nodes, at(20))).toEqual(expected);
  });
});

describe('holdsLeftMessage', () => {
  it('one run left them all: named once; resume names every NodePool, with the flags the command needs', () => {
    const left = holdsLeft(
      [
        held('general', record({ windows: [closedBudget], windowFlags: ["--window '0 15 * * */1h'"] }), [{ nodes: '20%' }, closedBudget, hold]),
        nodePool({ name: 'batch' }),
      ],
      [heldNode('b1', 'batch', RUN)],
      at(20),
    );
    expect(holdsLeftMessage(left, ' --lock-namespace karp --context prod')).toEqual({
      message:
        "every node runs the target AMIs, but karp-drift's holds are left by run 3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f: nodepool/batch: karpenter.sh/do-not-disrupt on 1 node; nodepool/general: a budget holding Drifted disruption at 0 and the upgrade windows' budgets (--window '0 15 * * */1h'), which keep drift shut outside them; until they are released, Karpenter does not disrupt those NodePools as their own budgets allow (the next AMI, or any change it drifts on, waits)",
      hint: "release them, each NodePool's own budgets put back exactly: karp-drift resume --nodepool batch --nodepool general --lock-namespace karp --context prod",
    });
  });

  it("several runs: each NodePool names its own; a dead run's switch and a draining budget said as what they do", () => {
    const left = holdsLeft(
      [
        held('general', record(), [{ nodes: '20%' }, switchBudget(at(15)), { nodes: '2', reasons: ['Drifted'] }]),
        held('arm', record({ runId: OTHER }), [{ nodes: '20%' }, switchBudget(at(30)), { nodes: '1', reasons: ['Drifted'] }]),
      ],
      [],
      at(20),
    );
    expect(holdsLeftMessage(left).message).toBe(
      "every node runs the target AMIs, but karp-drift's holds are left: nodepool/arm: a budget limiting Drifted disruption to 1 more replacement (run 77ab12cd-0000-4000-8000-000000000000); nodepool/general: a budget whose dead man's switch has held Drifted disruption at 0 since 14:15 UTC (run 3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f); until they are released, Karpenter does not disrupt those NodePools as their own budgets allow (the next AMI, or any change it drifts on, waits)",
    );
  });
});
