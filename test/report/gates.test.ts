// How a health-gate report reads when it carries launches EC2 refused for capacity (gates/attempts.ts `refusal`): the
// log line names them as not counted, the NDJSON `gate` event lists them under `notes`, and a halt prints them apart
// from what failed.
import { describe, expect, it } from 'vitest';
import type { GateFinding } from '../../src/gates/health.js';
import { gateEventJson, gateLogLine, haltLines, type GateReport } from '../../src/report/gates.js';
import type { StagePlan } from '../../src/stages/controller.js';
import { waves } from '../stages/helpers.js';

const plan: StagePlan = {
  stages: [
    { name: 'canary', nodePools: ['canary'] },
    { name: 'rollout', nodePools: ['general'] },
  ],
  waves: waves('1,100%'),
  soakMs: 0,
};
const refused = (name: string): GateFinding => ({
  gate: 'replacements',
  code: 'CAPACITY-REFUSED',
  subject: `nodeclaim/${name}`,
  nodePool: 'canary',
  message: `replacement nodeclaim/${name} (NodePool canary) was deleted 1s after it was created without launching: EC2 refused it for capacity (InsufficientCapacityError), no fault of the AMI, so it is not counted; Karpenter gives up a drift command that waited on it and picks its old node again`,
  evidence: [
    `event InsufficientCapacityError on NodeClaim/${name} (0s ago): "NodeClaim ${name} event: insufficient capacity, all requested instance types were unavailable during launch"`,
  ],
});
const passed: GateReport = {
  source: 'health',
  point: 'wave-end',
  checkpoint: { stage: 0, wave: 0, point: 'wave-end' },
  result: 'passed',
  findings: [],
  failures: 0,
  failureLimit: 1,
  replacedNodes: 1,
  pods: 4,
  pdbs: 1,
  notes: [refused('canary-a1b2c'), refused('canary-d3e4f')],
};

describe('launches refused for capacity in a gate report', () => {
  it('the log line of a checkpoint passed names them, not counted', () => {
    expect(gateLogLine(passed, plan)).toBe(
      'health gates passed at the end of stage 1/2 (canary) wave 1: 1 replaced node, 4 pods, 1 PDB; not counted: 2 launches EC2 refused for capacity (nodeclaim/canary-a1b2c, nodeclaim/canary-d3e4f)',
    );
    const { notes: _, ...none } = passed;
    expect(gateLogLine(none, plan)).toBe(
      'health gates passed at the end of stage 1/2 (canary) wave 1: 1 replaced node, 4 pods, 1 PDB',
    );
  });

  it('the NDJSON gate event lists them under notes, apart from findings', () => {
    const e = gateEventJson(passed, plan, new Date('2026-01-01T00:00:00Z'));
    expect(e).toMatchObject({ result: 'passed', failures: 0, findings: [] });
    expect((e.notes as GateFinding[]).map((n) => `${n.code} ${n.subject}`)).toEqual([
      'CAPACITY-REFUSED nodeclaim/canary-a1b2c',
      'CAPACITY-REFUSED nodeclaim/canary-d3e4f',
    ]);
    const { notes: _, ...none } = passed;
    expect(gateEventJson(none, plan, new Date('2026-01-01T00:00:00Z'))).not.toHaveProperty('notes');
  });

  it('a halt prints them after what failed, marked not counted', () => {
    const failed: GateReport = {
      ...passed,
      point: 'continuous',
      result: 'failed',
      failures: 1,
      notes: [refused('canary-a1b2c')],
      findings: [
        {
          gate: 'replacements',
          code: 'REPLACEMENT-DELETED',
          subject: 'nodeclaim/canary-g5h6i',
          nodePool: 'canary',
          message: 'replacement nodeclaim/canary-g5h6i (NodePool canary) was deleted before it was Initialized',
          evidence: ['last seen: Launched=Unknown LaunchFailed: Instance launch failed'],
        },
      ],
    };
    const { checkpoint: _, ...continuous } = failed;
    expect(haltLines(continuous, plan).join('')).toMatchInlineSnapshot(`
      "Health gate failed while the rollout runs (1 failure, --failure-limit 1)
        REPLACEMENT-DELETED replacement nodeclaim/canary-g5h6i (NodePool canary) was deleted before it was Initialized
            last seen: Launched=Unknown LaunchFailed: Instance launch failed
            next: kubectl get events -A --field-selector involvedObject.name=canary-g5h6i; Karpenter's log for canary-g5h6i ("terminating due to timeout")
        not counted: CAPACITY-REFUSED replacement nodeclaim/canary-a1b2c (NodePool canary) was deleted 1s after it was created without launching: EC2 refused it for capacity (InsufficientCapacityError), no fault of the AMI, so it is not counted; Karpenter gives up a drift command that waited on it and picks its old node again
            event InsufficientCapacityError on NodeClaim/canary-a1b2c (0s ago): "NodeClaim canary-a1b2c event: insufficient capacity, all requested instance types were unavailable during launch"
      "
    `);
  });
});
