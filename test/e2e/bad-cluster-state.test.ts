// Bad input that lives in the cluster or in AWS rather than on the command line: each row starts its own sandbox,
// puts it in the state (an older Karpenter, a deregistered AMI, custom images, an invalid budget, an admission
// policy, a colleague's edit between plan and apply), runs the built CLI, and checks the exit code, the message, and
// that no EC2NodeClass or NodePool changed.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import type { Scenario } from '../../src/sandbox/scenarios/schema.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { karpDrift } from './cli-sandbox.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const NODEPOOLS = 'nodepools.karpenter.sh';

async function cluster(overrides: Partial<Scenario> = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ scenario: { ...loadScenario('default'), ...overrides }, speed: 60 });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

/**
 * What karp-drift may write, which none may change on a refusal: each object's spec (its generation), labels and
 * annotations. Not its resourceVersion: the simulated Karpenter keeps writing status (conditions, the nodes it is
 * replacing after a setup changed the AMI selection), as the real one does.
 */
function written(sandbox: Sandbox): string[] {
  return [EC2NODECLASSES, NODEPOOLS].flatMap((r) =>
    sandbox.kube.store
      .list(r)
      .map((o) => `${r}/${o.metadata.name} generation ${o.metadata.generation} ${JSON.stringify(o.metadata.labels ?? {})} ${JSON.stringify(o.metadata.annotations ?? {})}`),
  );
}

/** A change by someone else, through the API machinery (validation, managedFields), as `kubectl edit` makes it. */
function edit(sandbox: Sandbox, resource: string, name: string, change: (o: KubeObject) => KubeObject): void {
  const current = sandbox.kube.store.get(resource, name)!;
  sandbox.kube.store.update(resource, change(current), { manager: 'kubectl-edit' });
}

function setTerms(sandbox: Sandbox, terms: unknown[]): void {
  edit(sandbox, EC2NODECLASSES, 'default', (o) => ({ ...o, spec: { ...(o.spec as object), amiSelectorTerms: terms } }));
}

async function until(what: string, ready: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusAmiIds = (sandbox: Sandbox) =>
  ((sandbox.kube.store.get(EC2NODECLASSES, 'default')?.status as { amis?: Array<{ id: string }> } | undefined)?.amis ?? []).map((a) => a.id);

/** The newest 1.30 image of one al2023 (arch, variant), as the sandbox's SSM publishes it. */
function release130(sandbox: Sandbox, arch: 'amd64' | 'arm64', variant: string) {
  return sandbox.aws.catalog.releases.filter((r) => r.family === 'al2023' && r.kubernetesVersion === '1.30' && r.arch === arch && r.variant === variant).at(-1)!;
}

interface Row {
  name: string;
  overrides?: Partial<Scenario>;
  setup?: (sandbox: Sandbox) => Promise<void> | void;
  args: string[];
  code: number;
  message: RegExp;
  /** The state nothing may change from, when it is not the state before the run (an edit lands during it). */
  baseline?: () => string[];
}

let afterColleague: string[] = [];

const up = ['upgrade', '--to', '1.30', '--yes'];

const rows: Row[] = [
  {
    name: 'a v1beta1 Karpenter (0.37) asked for alias terms',
    overrides: { karpenterVersion: '0.37.8' },
    args: [...up, '--pin', 'alias'],
    code: 3,
    message: /ALIAS-NEEDS-KARPENTER-V1.*\n(.*\n)*.*use --pin id, or upgrade Karpenter to v1 first/,
  },
  {
    name: 'the target AMI deregistered in EC2 (SSM still points at it)',
    setup: (sandbox) => {
      const gone = release130(sandbox, 'amd64', 'standard').imageId;
      sandbox.aws.catalog.images.delete(gone);
      sandbox.aws.catalog.deregisteredImageIds.add(gone);
    },
    args: up,
    code: 3,
    message: /AMI-MISSING[\s\S]*unavailable or deregistered/,
  },
  {
    name: 'a GPU variant in use with no AMI published for the target',
    overrides: {
      nodePools: [
        ...loadScenario('default').nodePools,
        {
          name: 'gpu',
          nodeClass: 'default',
          nodes: 1,
          arch: ['amd64'],
          gpu: true,
          doNotDisruptNodes: 0,
          fieldManager: 'kubectl',
        },
      ],
    },
    setup: (sandbox) => {
      for (const name of [...sandbox.aws.catalog.parameters.keys()])
        if (name.includes('/1.30/amazon-linux-2023/x86_64/nvidia/')) sandbox.aws.catalog.parameters.delete(name);
    },
    args: up,
    code: 3,
    message: /AMI-MISSING: no al2023 amd64 nvidia AMI is published for Kubernetes 1\.30 \(release latest\) in SSM, and ec2nodeclass\/default needs one[\s\S]*needed by nodepool\/gpu/,
  },
  {
    name: 'custom images selected by tags (a golden AMI pipeline)',
    setup: async (sandbox) => {
      const base = sandbox.aws.catalog.images.get(release130(sandbox, 'amd64', 'standard').imageId)!;
      for (const [arch, id] of [['x86_64', 'ami-0acde000000000001'], ['arm64', 'ami-0acde000000000002']] as const) {
        sandbox.aws.catalog.images.set(id, {
          ...base,
          imageId: id,
          name: `acme-golden-al2023-${arch}-1.29-20261001`,
          architecture: arch,
          ownerId: sandbox.aws.catalog.accountId,
          public: false,
          tags: { 'acme.io/golden': 'true' },
        });
      }
      setTerms(sandbox, [{ tags: { 'acme.io/golden': 'true' } }]);
      await until('status.amis to list the golden images', () => statusAmiIds(sandbox).includes('ami-0acde000000000001'));
    },
    args: up,
    code: 3,
    message: /CUSTOM-AMI[\s\S]*acme-golden-al2023-x86_64-1\.29-20261001[\s\S]*--replace-custom-amis/,
  },
  {
    name: '@latest: plan explains what the pin replaces and changes nothing',
    setup: async (sandbox) => {
      const before = statusAmiIds(sandbox).join();
      setTerms(sandbox, [{ alias: 'al2023@latest' }]);
      await until('status.amis to follow the alias', () => statusAmiIds(sandbox).join() !== before);
    },
    args: ['plan', '--to', '1.30'],
    code: 0,
    message: /SELECTOR-REPLACED[\s\S]*alias=al2023@latest follows the newest release[\s\S]*karp-drift rollback restores the floating terms/,
  },
  {
    name: 'a budget whose cron Karpenter rejects (it fails closed)',
    setup: (sandbox) =>
      edit(sandbox, NODEPOOLS, 'general', (o) => {
        const spec = o.spec as { disruption: Record<string, unknown> };
        return { ...o, spec: { ...spec, disruption: { ...spec.disruption, budgets: [{ nodes: '20%', schedule: '0 9 * * 8', duration: '8h' }] } } };
      }),
    args: up,
    code: 3,
    message: /BUDGET-INVALID[\s\S]*invalid cron "0 9 \* \* 8": end of range \(8\) above maximum \(6\)/,
  },
  {
    name: 'an admission policy rejecting the patch (its message verbatim)',
    setup: (sandbox) =>
      sandbox.kube.faults.denyAdmission(
        { verbs: ['patch'], resources: ['ec2nodeclasses'] },
        { webhook: 'validate.kyverno.svc-fail', message: 'resource EC2NodeClass//default was blocked: rule approved-amis failed: AMIs must be approved by platform-security' },
      ),
    args: up,
    code: 1,
    message:
      /the API server rejected the apply of ec2nodeclass\/\w+ \(HTTP 400, BadRequest\): admission webhook "validate\.kyverno\.svc-fail" denied the request: resource EC2NodeClass\/\/default was blocked: rule approved-amis failed: AMIs must be approved by platform-security/,
  },
  {
    name: 'a class changed between the plan and the apply',
    setup: (sandbox) =>
      // The access review comes after the plan's read and before the first write: a colleague's edit lands there.
      sandbox.kube.faults.beforeNext({ verbs: ['create'], resources: ['selfsubjectaccessreviews'] }, () => {
        edit(sandbox, EC2NODECLASSES, 'default', (o) => ({
          ...o,
          metadata: { ...o.metadata, labels: { ...o.metadata.labels, 'team.acme.io/owner': 'platform' } },
        }));
        afterColleague = written(sandbox);
      }),
    baseline: () => afterColleague,
    args: [...up, '--nodeclass', 'default'],
    code: 3,
    message: /plan is stale: ec2nodeclass\/default changed since it was read[\s\S]*re-run the command/,
  },
];

describe('bad cluster state: refused with the documented exit code and a message that says what and where', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const sandbox = await cluster(row.overrides);
    await row.setup?.(sandbox);
    const before = written(sandbox);
    const run = await karpDrift(sandbox, row.args, 60_000);
    expect(run.code, run.stderr).toBe(row.code);
    expect(`${run.stdout}${run.stderr}`).toMatch(row.message);
    expect(written(sandbox)).toEqual(row.baseline?.() ?? before);
  });
});

describe('a rejection after another class was applied', () => {
  it('names the classes already applied and the rollback that takes them back', async () => {
    const sandbox = await cluster();
    sandbox.kube.faults.denyAdmission(
      { verbs: ['patch'], resources: ['ec2nodeclasses'], names: ['default'] },
      { webhook: 'gatekeeper.sh', message: '[ami-allowlist] default must use approved AMIs' },
    );
    const untouched = sandbox.kube.store.get(EC2NODECLASSES, 'default')!.metadata.resourceVersion;
    const run = await karpDrift(sandbox, [...up, '--no-wait']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('admission webhook "gatekeeper.sh" denied the request: [ami-allowlist] default must use approved AMIs');
    expect(run.stderr).toContain('applied before it: ec2nodeclass/bottlerocket (undo with karp-drift rollback --nodeclass bottlerocket)');
    expect(sandbox.kube.store.get(EC2NODECLASSES, 'default')!.metadata.resourceVersion).toBe(untouched);
    expect(sandbox.kube.store.get(EC2NODECLASSES, 'bottlerocket')!.metadata.annotations?.['karp-drift.io/target']).toBe('1.30');
  });
});
