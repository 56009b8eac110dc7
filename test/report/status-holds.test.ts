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

// A window `0 15 * * */1h` (one hour from 15:00 daily), and the budget that holds drift while it is closed.
const closedBudget: Budget = { nodes: '0', reasons: ['Drifted'], schedule: '0 16 * * *', duration: '23h' };
const windowed = record({ windows: [closedBudget], windowFlags: ["--window '0 15 * * */1h'"], pausedBy: 'window' });
const PAUSED_FOOTER = ['karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on', ''];

describe('drift holds in status', () => {
  const PAUSED = PAUSED_FOOTER;
  it.each<[string, NodePoolView[], NodeView[], Array<Record<string, unknown>>, string[], string[]?]>([
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
          state: 'paused',
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
          state: 'draining',
        },
      ],
      ['batch      budget (Drifted: 2 more)   12m   3f2a9c1e…'],
      [
        // No live run, no switch (a hold written before the switch existed): Karpenter may go on starting two.
        'nodepool/batch: not paused: no run is live, and the hold still lets Karpenter start up to 2 more replacements',
        '  next: stop it now: karp-drift pause --nodepool batch; then re-run the staged upgrade to go on, or karp-drift rollback',
        '',
      ],
    ],
    [
      // Karpenter v1beta1 pruned the hold's reasons (DOMAIN.md §2.9): still karp-drift's, and it holds every method.
      'a budget hold the server kept without its reasons',
      [held('general', record(), [{ nodes: '20%' }, { nodes: '0' }])],
      [],
      [
        {
          nodePool: 'general',
          mechanism: 'budget',
          since: '2025-08-20T14:08:00Z',
          runId: RUN,
          allowance: 0,
          budgets: [{ nodes: '20%' }],
          state: 'paused',
        },
      ],
      ['general    budget (every reason: 0 more)   12m   3f2a9c1e…'],
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
          state: 'paused',
        },
      ],
      ['general    budget gone, record left   12m   3f2a9c1e…'],
    ],
    [
      'a hand-edited record is shown as such, never guessed at',
      [held('general', '{budgets: oops', [{ nodes: '20%' }, hold])],
      [],
      [{ nodePool: 'general', mechanism: 'budget', error: 'annotation karp-drift.io/drift-hold is not JSON', state: 'paused' }],
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
        { nodePool: 'arm', mechanism: 'node', runId: RUN, nodes: 2, state: 'paused' },
        { nodePool: 'arm', mechanism: 'node', runId: OTHER_RUN, nodes: 1, state: 'paused' },
      ],
      [
        'arm        do-not-disrupt on 2 nodes   -     3f2a9c1e…',
        'arm        do-not-disrupt on 1 node    -     77ab12cd…',
      ],
    ],
  ])('%s', (_name, pools, nodes, json, lines, footer = PAUSED) => {
    const holds = driftHolds(pools, nodes, at(20), { state: 'none' });
    expect(driftHoldsJson(holds)).toEqual(json);
    const text = driftHoldsText(holds, at(20)).split('\n');
    expect(text[0]).toBe('Drift held by karp-drift:');
    expect(text[1]).toMatch(/^NODEPOOL +HOLD +AGE +RUN$/);
    expect(text.slice(2, 2 + lines.length)).toEqual(lines);
    expect(text.slice(2 + lines.length)).toEqual(footer);
  });

  // What the holds mean depends on the cluster lock and on the hold's dead man's switch: the footer offers only
  // commands that will work (a live run's lock refuses resume).
  it.each<[string, NodePoolView[], NodeView[], Parameters<typeof driftHolds>[3], string[]]>([
    [
      'a live run paces them: its holds, followed with wait; no resume offered',
      [held('general', record(), [{ nodes: '20%' }, switchBudget(at(23)), { nodes: '1', reasons: ['Drifted'] }])],
      [],
      { state: 'live', holder: 'alice@laptop (run 3f2a9c1e)', command: 'upgrade --to 1.30 --canary canary', renewedAt: iso(at(19, 55)), durationSeconds: 30 },
      [
        'Paced by a live run, lease renewed 5s ago (30s lease):',
        '  alice@laptop (run 3f2a9c1e): karp-drift upgrade --to 1.30 --canary canary',
        '  next: the live run releases its holds as it goes and when it ends; follow it with: karp-drift wait (pause, resume, rollback and another upgrade are refused while it holds the cluster lock)',
        '',
      ],
    ],
    [
      "the run is gone and its switch fired: paused by the switch",
      [held('general', record(), [{ nodes: '20%' }, switchBudget(at(17)), { nodes: '1', reasons: ['Drifted'] }])],
      [],
      { state: 'none' },
      [
        "The run that paced them is gone; its dead man's switch holds drift at 0. karp-drift resume [--nodepool <name>] releases them; re-run the upgrade to go on",
        '',
      ],
    ],
    [
      'the run is gone and its switch has not fired yet: still draining, until when, and pause stops it',
      [held('general', record(), [{ nodes: '20%' }, switchBudget(at(22)), { nodes: '1', reasons: ['Drifted'] }])],
      [],
      { state: 'none' },
      [
        "nodepool/general: not paused: no run is live, and the hold still lets Karpenter start up to 1 more replacement until 14:22 UTC (its dead man's switch then holds drift at 0)",
        '  next: stop it now: karp-drift pause --nodepool general; then re-run the staged upgrade to go on, or karp-drift rollback',
        '',
      ],
    ],
    [
      'paused by its windows (the run stopped outside them): when the next one opens, and the windows',
      [held('general', windowed, [{ nodes: '20%' }, closedBudget, hold])],
      [],
      { state: 'none' },
      [
        'Paused by the window: waiting for the window that opens in 40m (Wed 15:00 UTC)',
        "  windows: --window '0 15 * * */1h'",
        '  next: run the same upgrade inside the next window (a scheduler can run it every window), release the hold with karp-drift resume (its windows go too), or roll back with karp-drift rollback',
        '',
      ],
    ],
    [
      'windows recorded, but a gate (not the window) stopped the run: paused, to look into',
      [held('general', record({ windows: [closedBudget], windowFlags: ["--window '0 15 * * */1h'"] }), [{ nodes: '20%' }, closedBudget, hold])],
      [],
      { state: 'none' },
      PAUSED_FOOTER,
    ],
    [
      'paused by its windows, but a live run holds the lock now: paced, not waiting',
      [held('general', windowed, [{ nodes: '20%' }, closedBudget, hold])],
      [],
      { state: 'live', holder: 'cronjob (run 9a)', renewedAt: iso(at(19, 55)), durationSeconds: 30 },
      [
        'Paced by a live run, lease renewed 5s ago (30s lease):',
        '  cronjob (run 9a)',
        '  next: the live run releases its holds as it goes and when it ends; follow it with: karp-drift wait (pause, resume, rollback and another upgrade are refused while it holds the cluster lock)',
        '',
      ],
    ],
    [
      'a lock that cannot be read: said, with how to look',
      [held('general', record(), [{ nodes: '20%' }, hold])],
      [],
      { state: 'unreadable' },
      [
        'Whether a run is live: the cluster lock (lease karp-drift) could not be read, so whether a run is live is not known',
        '  next: see whether a run is live: kubectl get lease karp-drift -n <lock namespace> -o yaml (reading it needs get on that Lease)',
        '',
      ],
    ],
    [
      'a holder that status --watch has not yet seen renew nor lapse: not called a pause, said what decides it',
      [held('general', record(), [{ nodes: '20%' }, hold])],
      [],
      { state: 'unconfirmed', holder: 'alice@laptop (run 3f2a9c1e)', command: 'upgrade --to 1.30 --canary canary', durationSeconds: 30, decidedWithinMs: 26_500 },
      [
        "Whether a run is live: the cluster lock (lease karp-drift) names alice@laptop (run 3f2a9c1e) (karp-drift upgrade --to 1.30 --canary canary), whose last renewal looks older than its 30s lease by this machine's clock; whether that run is live is known once it renews the lease or stays silent for 30s",
        '  next: look again in 27s: by then the run has renewed its lease or is gone',
        '',
      ],
    ],
  ])('%s', (_name, pools, nodes, lock, footer) => {
    const holds = driftHolds(pools, nodes, at(20), lock);
    const text = driftHoldsText(holds, at(20)).split('\n');
    expect(text.slice(3)).toEqual(footer);
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

  it('-o json: a hold paused by its windows says so, with the windows and when the next opens (or the open one closes)', () => {
    const pools = [held('general', windowed, [{ nodes: '20%' }, closedBudget, hold])];
    expect(driftHoldsJson(driftHolds(pools, [], at(20)))[0]).toMatchObject({
      state: 'windowed',
      windows: ["--window '0 15 * * */1h'"],
      windowOpen: false,
      opensAt: '2025-08-20T15:00:00Z',
    });
    expect(driftHoldsJson(driftHolds(pools, [], at(70)))[0]).toMatchObject({
      state: 'windowed',
      windowOpen: true,
      closesAt: '2025-08-20T16:00:00Z',
    });
    const open = driftHoldsText(driftHolds(pools, [], at(70)), at(70)).split('\n');
    expect(open[3]).toBe('Paused by the window: the window is open until Wed 16:00 UTC (50m left), and no karp-drift run paces the rollout in it');
  });

  it('says nothing when karp-drift holds nothing', () => {
    const holds = driftHolds([nodePool(), nodePool({ name: 'arm', budgets: [hold] })], [heldNode('ip-arm-1', 'arm')], at(20));
    expect(holds).toEqual([]);
    expect(driftHoldsText(holds, at(20))).toBe('');
  });
});
