// Rollouts held by their pods, end to end: a do-not-disrupt that runs out, pods that crash-loop but hold nothing, and a
// pod no other node can take (exit 4, the blocker named).
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

describe('karp-drift upgrade stalls held by pods', () => {
  it('do-not-disrupt-duration waits on the "30m" pod, says when it runs out, and never calls it blocked forever', async () => {
    const sandbox = await scenario('do-not-disrupt-duration');
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/DO-NOT-DISRUPT: 1 pod on nodes that will drift[\s\S]*pod batch\/nightly-\w+-\w{5} on node\/\S+: "30m", which holds until /);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '6s']);
    expect(run.code, run.stderr).toBe(4);
    const blocked = run.events.filter((e) => e.type === 'blocked');
    expect(new Set(blocked.map((b) => b.code))).toEqual(new Set(['STALL-DO-NOT-DISRUPT']));
    const evidence = blocked.at(-1)!.evidence as string[];
    expect(evidence[0]).toMatch(/^pod batch\/nightly-\S+ on node \S+ \(NodeClaim general-\w{5}\) is annotated karpenter\.sh\/do-not-disrupt: "30m", which holds until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+m from now\)$/);
    expect(evidence.some((line) => line.includes('Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=batch/nightly-'))).toBe(true);
  });

  it('crash-loop: an unready app under an AlwaysAllow PDB and a do-not-disrupt "True" hold nothing; the rollout completes', async () => {
    const sandbox = await scenario('crash-loop');
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toMatch(/PDB-BLOCKS|DO-NOT-DISRUPT:/);
    expect(plan.stdout).toMatch(/DO-NOT-DISRUPT-IGNORED: 1 pod on nodes that will drift carries a karpenter\.sh\/do-not-disrupt value that Karpenter ignores[\s\S]*"True" \(InvalidDoNotDisruptAnnotation: /);
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-o', 'json', '--stall-timeout', '20s']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === 'blocked')).toEqual([]);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'succeeded' });
  });

  it('unschedulable ends with exit 4 and STALL-UNSCHEDULABLE, in the NDJSON and, on a second run, in the summary', async () => {
    const sandbox = await scenario('unschedulable');
    // plan sees it coming: the pod requires the very node that will drift.
    const plan = await karpDrift(sandbox, ['plan', '--to', '1.30']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/POD-PINNED: 1 pod on nodes that will drift is pinned to its node[\s\S]*pod mirrord\/mirrord-agent-\w{5} on node\//);
    const args = ['upgrade', '--to', '1.30', '--yes', '--stall-timeout', '6s'];
    const json = await karpDrift(sandbox, [...args, '-o', 'json']);
    expect(json.code, json.stderr).toBe(4);
    const blocked = json.events.filter((e) => e.type === 'blocked');
    // Once when it shows, once more with the stall. No STALL-NO-TGP: the NodePool has a terminationGracePeriod, and
    // one would not help here anyway.
    expect(new Set(blocked.map((b) => b.code))).toEqual(new Set(['STALL-UNSCHEDULABLE']));
    expect(JSON.stringify(blocked.at(-1)!.evidence)).toContain('Not all pods would schedule, mirrord/mirrord-agent-');
    expect(blocked.at(-1)!.next).toMatch(/kubectl delete pod mirrord-agent-\w{5} -n mirrord; .* terminationGracePeriod does not help/);
    // Running again resumes the rollout where it stands: the class is pinned already.
    const human = await karpDrift(sandbox, args);
    expect(human.code, human.stderr).toBe(4);
    expect(human.stderr).toContain("STALL-UNSCHEDULABLE: Not all pods would schedule elsewhere: Karpenter's scheduling simulation holds 1 drifted node (NodePool general)");
    expect(human.stderr).toContain('the changes stay applied');
  });
});
