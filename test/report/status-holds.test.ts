// What `status` shows of karp-drift's own holds: NodePools paused with a budget (by `pause` or a staged upgrade that
// stopped), Nodes held with do-not-disrupt, and the records a person or a GitOps sync has since changed.
import { describe, expect, it } from 'vitest';
import type { NodePoolView, NodeView } from '../../src/karpenter/views.js';
import type { Budget } from '../../src/karpenter/budgets.js';
import { driftHolds, driftHoldsJson, driftHoldsText } from '../../src/report/status-holds.js';
import { switchBudget } from '../../src/apis/budget-hold.js';
import { at, iso, node, nodePool } from '../rollout/factories.js';

const RUN = '3f2a9c1e-7b4d-4e2a-9d0c-5a1b2c3d4e5f';
const OTHER_RUN = '77ab12cd-0000-4000-8000-000000000000';
const hold: Budget = { nodes: '0', reasons: ['Drifted'] };
const record = (o: Record<string, unknown> = {}) =>
  JSON.stringify({ runId: RUN, since: iso(at(8)), budgets: [{ nodes: '20%' }], ...o });
const held = (name: string, annotation: string, budgets: Budget[] | undefined): NodePoolView =>
  nodePool({
    name,
    annotations: { 'karp-drift.io/drift-hold': annotation },
    ...(budgets !== undefined ? { budgets } : {}),
  });
const heldNode = (name: string, nodePoolName: string, runId?: string): NodeView =>
  node({ name, nodePool: nodePoolName, doNotDisrupt: true, ...(runId !== undefined ? { heldBy: runId } : {}) });

describe('drift holds in status', () => {
  it.each<[string, NodePoolView[], NodeView[], Array<Record<string, unknown>>, string[]]>([
    [
      'a NodePool paused with a budget',
      [held('general', record(), [{ nodes: '20%' }, hold])],
      [],
      [
        {
          nodePool: 'general',
          mechanism: 'budget',
          since: '2025-08-20T14:08:00Z',
          runId: RUN,
          allowance: 0,
          budgets: [{ nodes: '20%' }],
        },
      ],
      ['general    budget (Drifted: 0 more)   12m   3f2a9c1e…'],
    ],
    [
      'a staged upgrade pacing a NodePool whose budgets were absent',
      [
        held('batch', record({ budgets: null, target: '1.30', stageSize: 8 }), [
          { nodes: '10%' },
          { nodes: '2', reasons: ['Drifted'] },
        ]),
      ],
      [],
      [
        {
          nodePool: 'batch',
          mechanism: 'budget',
          since: '2025-08-20T14:08:00Z',
          runId: RUN,
          allowance: 2,
          budgets: null,
        },
      ],
      ['batch      budget (Drifted: 2 more)   12m   3f2a9c1e…'],
    ],
    [
      'a record whose budget a GitOps sync took away: it holds nothing, and resume clears it',
      [held('general', record(), [{ nodes: '20%' }])],
      [],
      [
        {
          nodePool: 'general',
          mechanism: 'budget',
          since: '2025-08-20T14:08:00Z',
          runId: RUN,
          budgets: [{ nodes: '20%' }],
        },
      ],
      ['general    budget gone, record left   12m   3f2a9c1e…'],
    ],
    [
      'a hand-edited record is shown as such, never guessed at',
      [held('general', '{budgets: oops', [{ nodes: '20%' }, hold])],
      [],
      [{ nodePool: 'general', mechanism: 'budget', error: 'annotation karp-drift.io/drift-hold is not JSON' }],
      [
        'general    unreadable record   -     -',
        'nodepool/general: annotation karp-drift.io/drift-hold is not JSON',
        '  next: set its budgets as they should be, then: kubectl annotate nodepool general karp-drift.io/drift-hold-',
      ],
    ],
    [
      "node holds, by run; the user's own do-not-disrupt and other NodePools' nodes are not counted",
      [nodePool({ name: 'arm' })],
      [
        heldNode('ip-arm-1', 'arm', RUN),
        heldNode('ip-arm-2', 'arm', RUN),
        heldNode('ip-arm-3', 'arm', OTHER_RUN),
        heldNode('ip-arm-4', 'arm'),
        heldNode('ip-general-1', 'general', RUN),
      ],
      [
        { nodePool: 'arm', mechanism: 'node', runId: RUN, nodes: 2 },
        { nodePool: 'arm', mechanism: 'node', runId: OTHER_RUN, nodes: 1 },
      ],
      [
        'arm        do-not-disrupt on 2 nodes   -     3f2a9c1e…',
        'arm        do-not-disrupt on 1 node    -     77ab12cd…',
      ],
    ],
  ])('%s', (_name, pools, nodes, json, lines) => {
    const holds = driftHolds(pools, nodes, at(20));
    expect(driftHoldsJson(holds)).toEqual(json);
    const text = driftHoldsText(holds, at(20)).split('\n');
    expect(text[0]).toBe('Drift held by karp-drift:');
    expect(text[1]).toMatch(/^NODEPOOL +HOLD +AGE +RUN$/);
    expect(text.slice(2, 2 + lines.length)).toEqual(lines);
    expect(text.slice(2 + lines.length)).toEqual([
      'karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on',
      '',
    ]);
  });

  it.each<[string, string, string]>([
    ['under a minute', iso(at(19, 30)), '<1m'],
    ['a minute and a half', iso(at(18, 30)), '1m'],
    ['to the minute, so --watch does not print every second', iso(at(14, 30)), '5m'],
    ['hours', iso(at(-160)), '3h'],
    ['a since that is not a time', 'yesterday', '-'],
  ])('AGE: %s', (_name, since, shown) => {
    const text = driftHoldsText(driftHolds([held('general', record({ since }), [hold])], [], at(20)), at(20));
    expect(text.split('\n')[2]).toMatch(new RegExp(`^general +budget \\(Drifted: 0 more\\) +${shown} +3f2a9c1e…$`));
  });

  // A staged run's hold carries its dead man's switch: while the run lives it says when drift stops by itself; once
  // past, the run is gone and Karpenter holds at 0 (apis/budget-hold.ts switchBudget).
  it.each<[string, Date, string]>([
    ['the switch ahead: the run is (or was until moments ago) alive', at(22), 'budget \\(Drifted: up to 2; 0 at \\d\\d:\\d\\dZ\\)'],
    ['the switch past: the run is gone and Karpenter holds at 0 by itself', at(18), 'budget 0 since \\d\\d:\\d\\dZ \\(run gone\\)'],
  ])('%s', (_name, fires, cell) => {
    const budgets = [switchBudget(fires), { nodes: '2', reasons: ['Drifted'] }] as Budget[];
    const holds = driftHolds([held('general', record({}), budgets)], [], at(20));
    expect(holds[0]!.switchAt).toBe(fires.toISOString());
    expect(driftHoldsText(holds, at(20)).split('\n')[2]).toMatch(new RegExp(`^general +${cell} +`));
  });

  it('says nothing when karp-drift holds nothing', () => {
    const holds = driftHolds([nodePool(), nodePool({ name: 'arm', budgets: [hold] })], [heldNode('ip-arm-1', 'arm')], at(20));
    expect(holds).toEqual([]);
    expect(driftHoldsText(holds, at(20))).toBe('');
  });
});
