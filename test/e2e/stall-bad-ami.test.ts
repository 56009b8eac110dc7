// The stall diagnosis of an ungated rollout onto a bad AMI, through the built CLI on the bad-ami sandbox: applied with
// `upgrade --no-wait` (nothing paces or gates it), followed by `wait` until it stalls. The diagnosis must name the
// failing AMI first (STALL-BAD-AMI) with `rollback` as the way on, and no finding may advise loosening what still
// holds the old nodes; `status` reads the same. Each pod and NodeClaim it names is checked against the API.
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { karpDrift, scenario } from './cli-sandbox.js';

interface Blocked {
  type: string;
  stage?: string;
  code: string;
  nodePool?: string;
  nodeClass?: string;
  message: string;
  evidence: string[];
  next: string;
}

const ROLLBACK = 'karp-drift rollback --nodeclass default';
/** The usual next steps of STALL-PDB and STALL-NO-TGP, which would let drift move more nodes onto the bad AMI. */
const LOOSENING = [/relax minAvailable/, /unhealthyPodEvictionPolicy":"AlwaysAllow/, /set spec\.template\.spec\.terminationGracePeriod/];

/** What the sandbox's API says of a pod and of the NodeClaim behind its node, as a client reads them. */
function fromApi(sandbox: Sandbox, namespace: string, name: string) {
  const pod = sandbox.kube.store.list('pods').find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
  const nodeName = (pod?.spec as { nodeName?: string } | undefined)?.nodeName;
  const statuses = (pod?.status as { containerStatuses?: Array<{ state?: { waiting?: { reason?: string } } }> })
    ?.containerStatuses;
  const claim = sandbox.kube.store
    .list('nodeclaims.karpenter.sh')
    .find((c) => (c.status as { nodeName?: string }).nodeName === nodeName);
  const pinned = sandbox.kube.store
    .list('ec2nodeclasses.karpenter.k8s.aws')
    .flatMap((c) => (c.spec as { amiSelectorTerms: Array<{ id?: string }> }).amiSelectorTerms.map((t) => t.id));
  return {
    nodeName,
    waiting: statuses?.[0]?.state?.waiting?.reason,
    claim: claim?.metadata.name,
    imageId: (claim?.status as { imageID?: string } | undefined)?.imageID,
    pinned,
  };
}

describe('the stall diagnosis of an ungated rollout onto a bad AMI (bad-ami sandbox)', () => {
  it('names STALL-BAD-AMI first, with its evidence and rollback as the next step, in wait and in status', async () => {
    const sandbox = await scenario('bad-ami');
    const apply = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '--no-wait']);
    expect(apply.code, apply.stderr).toBe(0);

    const run = await karpDrift(sandbox, ['wait', '--stall-timeout', '6s', '-o', 'json']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', result: 'stalled' });
    const verdict = run.events.filter((e) => e.type === 'blocked' && e.stage === 'stall') as unknown as Blocked[];
    expect(verdict[0]).toMatchObject({ code: 'STALL-BAD-AMI', nodeClass: 'default' });
    const bad = verdict[0]!;
    expect(bad.message).toMatch(
      /^The target AMI fails on its replacements \(EC2NodeClass "default", ami-[0-9a-f]+(, ami-[0-9a-f]+)?\): \d+ pods of \d+ workloads failing on \d+ nodes while running Ready on the old AMI$/,
    );
    expect(bad.next).toMatch(new RegExp(`^Roll the class back before drift replaces more nodes: ${ROLLBACK} `));
    // The error line says the same: roll back, not "resolve the blockers, then follow again".
    expect(run.stderr).toContain(`roll it back before drift replaces more nodes: ${ROLLBACK}`);
    expect(run.stderr).not.toContain('follow again');

    // The kubelet's words for each workload, and the pod it names is crash-looping on a node of a pinned AMI.
    const workloads = bad.evidence.filter((l) => l.startsWith('workload '));
    expect(workloads.length).toBeGreaterThan(0);
    for (const line of workloads) {
      expect(line).toMatch(/: CrashLoopBackOff: back-off .* restarting failed container=.*; last termination: exit code 139 \(Error\); \d+ restarts$/);
      const [, namespace, name, node, claim] = / e\.g\. pod ([^/]+)\/(\S+) on node (\S+) \(NodeClaim (\S+)\)/.exec(line)!;
      const api = fromApi(sandbox, namespace!, name!);
      expect(api).toMatchObject({ nodeName: node, waiting: 'CrashLoopBackOff', claim });
      expect(api.pinned).toContain(api.imageId);
    }

    // The findings behind it keep their evidence but do not advise loosening while the AMI fails.
    const others = verdict.slice(1);
    expect(others.map((b) => b.code)).toEqual(expect.arrayContaining(['STALL-PDB', 'STALL-NO-TGP']));
    for (const b of others) {
      expect(b.next).toMatch(/^Leave it while the target AMI of EC2NodeClass "default" fails \(STALL-BAD-AMI\)/);
      expect(b.next).toContain(ROLLBACK);
      for (const advice of LOOSENING) expect(b.next).not.toMatch(advice);
    }

    const status = await karpDrift(sandbox, ['status', '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    const pools = (JSON.parse(status.stdout) as { nodePools: Array<{ name: string; blockers: Blocked[] }> }).nodePools;
    for (const pool of pools) {
      expect(pool.blockers[0], pool.name).toMatchObject({ code: 'STALL-BAD-AMI' });
      expect(pool.blockers[0]!.next).toContain(ROLLBACK);
    }
  }, 120_000);
});
