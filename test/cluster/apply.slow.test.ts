// Server-side apply of the AMI selection against the sandbox: what is owned, what is refused, what changes nothing.
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it, onTestFinished } from 'vitest';
import { applyConfiguration, applyNodeClass, applyObject, bookkeeping, FIELD_MANAGER } from '../../src/cluster/apply.js';
import { nodeClassView } from '../../src/karpenter/convert.js';
import { KarpDriftError } from '../../src/errors.js';
import { controlPlaneAmis, manualSandbox } from '../sandbox/karpenter/harness.js';

const EC2NODECLASSES = 'ec2nodeclasses.karpenter.k8s.aws';

async function setUp(scenario: string) {
  const sandbox = await manualSandbox(scenario);
  onTestFinished(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  const api = kc.makeApiClient(CustomObjectsApi);
  const live = () => nodeClassView(sandbox.kube.store.get(EC2NODECLASSES, 'default')!);
  return { sandbox, api, live };
}

async function refusal(p: Promise<unknown>): Promise<KarpDriftError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(KarpDriftError);
  return err as KarpDriftError;
}

describe('applyNodeClass', () => {
  it('takes amiSelectorTerms from kubectl with a forced apply, records the previous terms, and bumps the generation', async () => {
    const { sandbox, api, live } = await setUp('default');
    const before = live();
    expect(before.owners.find((o) => o.ownsAmiSelectorTerms)?.manager).toBe('kubectl-client-side-apply');
    const ids = controlPlaneAmis(sandbox, 'default');
    const result = await applyNodeClass(
      api,
      {
        name: 'default',
        karpenterApi: 'v1',
        resourceVersion: before.resourceVersion,
        amiFamily: 'AL2023',
        amiSelectorTerms: ids.map((id) => ({ id })),
        annotations: bookkeeping(before, '1.30', 'run-1'),
        force: true,
      },
      { dryRun: false },
    );
    const after = live();
    expect(result.generation).toBe(before.generation + 1);
    expect(after.amiSelectorTerms).toEqual(ids.map((id) => ({ id })));
    expect(after.owners.filter((o) => o.ownsAmiSelectorTerms).map((o) => o.manager)).toEqual([FIELD_MANAGER]);
    expect(JSON.parse(after.annotations['karp-drift.io/previous-ami-selector-terms']!)).toEqual(before.amiSelectorTerms);
    // Hashed fields are untouched.
    const raw = sandbox.kube.store.get(EC2NODECLASSES, 'default')!;
    expect((raw.spec as { role: string }).role).toBe('KarpenterNodeRole-sandbox');
  });

  it('changes nothing with dryRun, and refuses a stale resourceVersion with exit 3', async () => {
    const { sandbox, api, live } = await setUp('default');
    const before = live();
    const apply = {
      name: 'default',
      karpenterApi: 'v1' as const,
      resourceVersion: before.resourceVersion,
      amiFamily: 'AL2023',
      amiSelectorTerms: controlPlaneAmis(sandbox, 'default').map((id) => ({ id })),
      annotations: {},
      force: true,
    };
    await applyNodeClass(api, apply, { dryRun: true });
    expect(live().resourceVersion).toBe(before.resourceVersion);
    await applyNodeClass(api, apply, { dryRun: false });
    const stale = await refusal(applyNodeClass(api, apply, { dryRun: false }));
    expect(stale.exitCode).toBe(3);
    expect(stale.message).toContain('plan is stale: ec2nodeclass/default changed since it was read');
  });

  it('refuses to take the field from Argo CD without force (exit 3, naming the manager)', async () => {
    const { sandbox, api, live } = await setUp('gitops-owned');
    const before = live();
    const err = await refusal(
      applyNodeClass(
        api,
        { name: 'default', karpenterApi: 'v1', resourceVersion: before.resourceVersion, amiFamily: 'AL2023', amiSelectorTerms: controlPlaneAmis(sandbox, 'default').map((id) => ({ id })), annotations: {}, force: false },
        { dryRun: false },
      ),
    );
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain('argocd-controller');
    expect(err.message).toContain('.spec.amiSelectorTerms');
    expect(live().resourceVersion).toBe(before.resourceVersion);
  });

  it('reports the CRD rule when the API server rejects the object (exit 1)', async () => {
    const { api, live } = await setUp('default');
    const before = live();
    const err = await refusal(
      applyNodeClass(
        api,
        { name: 'default', karpenterApi: 'v1', resourceVersion: before.resourceVersion, amiSelectorTerms: [{ alias: 'al2023@latest' }, { id: 'ami-0123456789abcdef0' }], annotations: {}, force: true },
        { dryRun: false },
      ),
    );
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/rejected the apply of ec2nodeclass\/default \(HTTP 422, Invalid\): spec.amiSelectorTerms/);
  });

  it('builds only the fields it owns', () => {
    expect(applyConfiguration({ name: 'x', karpenterApi: 'v1', resourceVersion: '7', amiSelectorTerms: [{ alias: 'al2023@v20261023' }], annotations: { a: 'b' }, force: false })).toEqual({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'x', resourceVersion: '7', annotations: { a: 'b' } },
      spec: { amiSelectorTerms: [{ alias: 'al2023@v20261023' }] },
    });
  });
});

describe('applyObject (upgrade --templates)', () => {
  it('applies at the resourceVersion the diff was computed against, and refuses the object changed since (exit 3)', async () => {
    const { sandbox, api, live } = await setUp('default');
    const before = live();
    const { metadata, ...rest } = structuredClone(sandbox.kube.store.get(EC2NODECLASSES, 'default')!);
    const body = { ...rest, metadata: { name: metadata.name }, spec: { ...(rest.spec as object), role: 'KarpenterNodeRole-other' } };
    delete (body as { status?: unknown }).status;
    const apply = { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses', name: 'default', body, force: true, resourceVersion: before.resourceVersion };
    await applyObject(api, apply, { dryRun: false });
    expect((sandbox.kube.store.get(EC2NODECLASSES, 'default')!.spec as { role: string }).role).toBe('KarpenterNodeRole-other');
    const stale = await refusal(applyObject(api, { ...apply, body: { ...body, spec: { ...body.spec, role: 'KarpenterNodeRole-third' } } }, { dryRun: false }));
    expect(stale.exitCode).toBe(3);
    expect(stale.message).toContain(`ec2nodeclass/default changed since its diff was shown (resourceVersion ${before.resourceVersion})`);
    expect((sandbox.kube.store.get(EC2NODECLASSES, 'default')!.spec as { role: string }).role).toBe('KarpenterNodeRole-other');
  });
});

describe('applyNodeClass over an object karp-drift applied whole', () => {
  it('keeps every other field karp-drift owns (the templates\' role, tags, labels), and drops its old bookkeeping', async () => {
    const { sandbox, api, live } = await setUp('default');
    const { metadata, ...rest } = structuredClone(sandbox.kube.store.get(EC2NODECLASSES, 'default')!);
    delete (rest as { status?: unknown }).status;
    // As `upgrade --templates` applies it: the whole object, a tag and a label karp-drift alone owns, its records.
    const body = {
      ...rest,
      metadata: { name: metadata.name, labels: { team: 'ml' }, annotations: { note: 'from the templates', 'karp-drift.io/run-id': 'run-0' } },
      spec: { ...(rest.spec as object), role: 'KarpenterNodeRole-templates', tags: { owner: 'ml' } },
    };
    await applyObject(api, { group: 'karpenter.k8s.aws', version: 'v1', plural: 'ec2nodeclasses', name: 'default', body, force: true }, { dryRun: false });
    const before = live();
    const ids = controlPlaneAmis(sandbox, 'default');
    await applyNodeClass(
      api,
      { name: 'default', karpenterApi: 'v1', resourceVersion: before.resourceVersion, amiFamily: 'AL2023', amiSelectorTerms: ids.map((id) => ({ id })), annotations: { 'karp-drift.io/target': '1.30' }, force: true },
      { dryRun: false },
    );
    const after = sandbox.kube.store.get(EC2NODECLASSES, 'default')!;
    expect(after.spec).toMatchObject({ role: 'KarpenterNodeRole-templates', tags: { owner: 'ml' }, amiSelectorTerms: ids.map((id) => ({ id })) });
    expect(after.metadata.labels).toMatchObject({ team: 'ml' });
    expect(after.metadata.annotations).toMatchObject({ note: 'from the templates', 'karp-drift.io/target': '1.30' });
    expect(after.metadata.annotations?.['karp-drift.io/run-id']).toBeUndefined();
  });
});

describe('applyNodeClass under API faults', () => {
  it('retries a server-side apply answered with 429 (Retry-After) and 500: it is idempotent', async () => {
    const { sandbox, api, live } = await setUp('default');
    const before = live();
    sandbox.kube.faults.fail({ code: 429, next: 1, retryAfterSeconds: 1, verbs: ['patch'] });
    sandbox.kube.faults.fail({ code: 500, next: 1, verbs: ['patch'] });
    const ids = controlPlaneAmis(sandbox, 'default');
    await applyNodeClass(
      api,
      { name: 'default', karpenterApi: 'v1', resourceVersion: before.resourceVersion, amiFamily: 'AL2023', amiSelectorTerms: ids.map((id) => ({ id })), annotations: {}, force: true },
      { dryRun: false },
    );
    const patches = sandbox.kube.requests.filter((r) => r.verb === 'patch').map((r) => r.code);
    expect(patches).toEqual([429, 500, 200]);
    expect(live().amiSelectorTerms).toEqual(ids.map((id) => ({ id })));
  });
});
