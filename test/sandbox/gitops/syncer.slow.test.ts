// The sandbox's GitOps stand-in (src/sandbox/gitops/): what it syncs from, under which field manager, self-heal, and
// what the Application or Kustomization it keeps says, read through the sandbox's store on a manual clock (each
// `sync()` is one interval).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { serverSideApply } from '../../../src/sandbox/kube-api/server-side-apply.js';
import { loadScenario } from '../../../src/sandbox/scenarios/load.js';
import { parseScenario } from '../../../src/sandbox/scenarios/schema.js';
import { readFileSync } from 'node:fs';
import { APPLICATIONS, GIT_REPOSITORIES, KUSTOMIZATIONS } from '../../../src/sandbox/gitops/owner-objects.js';

const CLASSES = 'ec2nodeclasses.karpenter.k8s.aws';
const GITOPS_OWNED = readFileSync(new URL('../../../scenarios/gitops-owned.yaml', import.meta.url), 'utf8').replace(/\ngitops:\n {2}tool: argocd\n/, '\n');

async function started(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox & { gitops: NonNullable<Sandbox['gitops']> }> {
  const sandbox = await startSandbox({ scenario: 'gitops-owned', manualClock: new ManualClock(new Date()), ...options });
  onTestFinished(() => sandbox.stop());
  if (sandbox.gitops === undefined) throw new Error('no GitOps stand-in started');
  return sandbox as Sandbox & { gitops: NonNullable<Sandbox['gitops']> };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'karp-drift-gitops-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const termsOf = (s: Sandbox, name = 'default') => (s.kube.store.get(CLASSES, name)?.spec as { amiSelectorTerms: unknown }).amiSelectorTerms;
/** Who owns the class's spec: Karpenter's own Update of its hash annotations (`karpenter/Update`) is left out. */
const ownersOf = (s: Sandbox, name = 'default') =>
  s.kube.store
    .get(CLASSES, name)
    ?.metadata.managedFields?.filter((m) => m.subresource !== 'status' && m.manager !== 'karpenter')
    .map((m) => `${m.manager}/${m.operation}`);

/** Another manager's forced server-side apply of the class's terms (a person, or karp-drift with --force-conflicts). */
function applyTerms(s: Sandbox, terms: unknown[], manager: string): void {
  const r = s.kube.store.info(CLASSES);
  const live = s.kube.store.get(r, 'default')!;
  const applied = { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default' }, spec: { amiSelectorTerms: terms } };
  const object = serverSideApply({ live, applied, manager, force: true, now: new Date().toISOString(), resource: r, name: 'default', listSemantics: s.kube.store.listSemantics(r) });
  s.kube.store.update(r, object, { manager, managedFieldsComputed: true });
}

describe('the GitOps stand-in', () => {
  it('gitops-owned: seeds a directory with the class Argo CD owns, keeps an Application naming it, and syncs it as argocd-controller', async () => {
    const s = await started();
    const files = await readdir(s.gitops.dir);
    expect(files).toEqual(['ec2nodeclass-default.yaml']);
    const manifest = await readFile(join(s.gitops.dir, 'ec2nodeclass-default.yaml'), 'utf8');
    expect(manifest).toContain('amiSelectorTerms:');
    const app = s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!;
    expect(app.spec).toMatchObject({ source: { repoURL: `file://${s.gitops.dir}`, path: '.', targetRevision: 'HEAD' } });
    const status = app.status as { sync: { status: string; revision: string }; history: Array<{ id: number; revision: string }> };
    expect(status.sync).toMatchObject({ status: 'Synced', revision: s.gitops.syncs[0]!.revision });
    expect(status.sync.revision).toMatch(/^[0-9a-f]{40}$/);
    expect(status.history.map((h) => h.id)).toEqual([0]);
    const cls = s.kube.store.get(CLASSES, 'default')!;
    expect(cls.metadata.labels?.['app.kubernetes.io/instance']).toBe('karpenter');
    expect(cls.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('karpenter:karpenter.k8s.aws/EC2NodeClass:karpenter/default');
    expect(ownersOf(s)).toEqual(['argocd-controller/Apply']);
    expect(s.summary).toContain(`Argo CD Application argocd/karpenter syncs ${s.gitops.dir}`);
  });

  it('puts back a field another manager changed (self-heal), and writes nothing when nothing differs', async () => {
    const s = await started();
    const before = termsOf(s);
    applyTerms(s, [{ alias: 'al2023@latest' }], 'karp-drift');
    expect(termsOf(s)).toEqual([{ alias: 'al2023@latest' }]);
    s.gitops.sync();
    expect(termsOf(s)).toEqual(before);
    expect(ownersOf(s)).toEqual(['argocd-controller/Apply']);
    const rv = s.kube.store.get(CLASSES, 'default')!.metadata.resourceVersion;
    const appRv = s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.metadata.resourceVersion;
    s.gitops.sync();
    expect(s.kube.store.get(CLASSES, 'default')!.metadata.resourceVersion).toBe(rv);
    expect(s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.metadata.resourceVersion).toBe(appRv);
  });

  it('applies what a file says once it changes, at a new revision recorded in the history', async () => {
    const s = await started();
    const path = join(s.gitops.dir, 'ec2nodeclass-default.yaml');
    const text = await readFile(path, 'utf8');
    const edited = text.replace(/amiSelectorTerms:\n(\s+- id: .*\n)+/, 'amiSelectorTerms:\n    - alias: al2023@latest\n').replace(/\s+amiFamily: AL2023\n/, '\n');
    expect(edited).not.toBe(text);
    await writeFile(path, edited);
    s.gitops.sync();
    expect(termsOf(s)).toEqual([{ alias: 'al2023@latest' }]);
    const status = s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.status as {
      sync: { revision: string };
      operationState: { phase: string; syncResult: { revision: string; resources: Array<{ kind: string; name: string; status: string }> } };
      history: Array<{ id: number; revision: string }>;
    };
    expect(status.sync.revision).toBe(s.gitops.syncs[1]!.revision);
    expect(status.sync.revision).not.toBe(s.gitops.syncs[0]!.revision);
    expect(status.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: status.sync.revision, resources: [{ kind: 'EC2NodeClass', name: 'default', status: 'Synced' }] } });
    expect(status.history.map((h) => [h.id, h.revision])).toEqual([
      [0, s.gitops.syncs[0]!.revision],
      [1, s.gitops.syncs[1]!.revision],
    ]);
  });

  it('applies nothing of a directory it cannot build, and says why on the Application', async () => {
    const s = await started();
    const before = termsOf(s);
    await writeFile(join(s.gitops.dir, 'ec2nodeclass-default.yaml'), 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\nspec: {amiSelectorTerms: [{alias: al2023@latest}]}\n');
    await writeFile(join(s.gitops.dir, 'broken.yaml'), 'kind: [unclosed\n');
    s.gitops.sync();
    expect(termsOf(s)).toEqual(before);
    const status = s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.status as { sync: { status: string }; operationState: { phase: string; message: string } };
    expect(status.sync.status).toBe('OutOfSync');
    expect(status.operationState.phase).toBe('Failed');
    expect(status.operationState.message).toContain('broken.yaml: not valid YAML');
  });

  it('reports an object the API server refuses, with its words, and applies the others', async () => {
    const dir = await tempDir();
    const s0 = await started();
    const seeded = await readFile(join(s0.gitops.dir, 'ec2nodeclass-default.yaml'), 'utf8');
    await writeFile(join(dir, 'a.yaml'), seeded);
    await writeFile(join(dir, 'b.yaml'), 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: other}\nspec: {role: r, amiSelectorTerms: [{id: not-an-id}], subnetSelectorTerms: [{id: subnet-1}], securityGroupSelectorTerms: [{id: sg-1}]}\n');
    const s = await started({ gitopsDir: dir });
    expect(s.kube.store.get(CLASSES, 'other')).toBeUndefined();
    const status = s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.status as { operationState: { phase: string; message: string; syncResult: { resources: Array<{ name: string; status: string }> } } };
    expect(status.operationState.phase).toBe('Failed');
    expect(status.operationState.message).toMatch(/b\.yaml: EC2NodeClass\.karpenter\.k8s\.aws "other" is invalid: \[spec\.amiSelectorTerms\[0\]\.id: Invalid value: "not-an-id"/);
    expect(status.operationState.syncResult.resources.map((r) => `${r.name}:${r.status}`)).toEqual(['default:Synced', 'other:SyncFailed']);
  });

  it('--gitops-dir: an empty directory is seeded; one with manifests is synced as it is, and a kustomization in it is not built', async () => {
    const empty = join(await tempDir(), 'new');
    const seeded = await started({ gitopsDir: empty });
    expect(seeded.gitops.dir).toBe(empty);
    expect(await readdir(empty)).toEqual(['ec2nodeclass-default.yaml']);
    const dir = await tempDir();
    await writeFile(join(dir, 'class.yaml'), await readFile(join(empty, 'ec2nodeclass-default.yaml'), 'utf8'));
    await writeFile(join(dir, 'kustomization.yaml'), 'resources: [class.yaml]\n');
    const s = await started({ gitopsDir: dir });
    expect(await readdir(dir)).toEqual(['class.yaml', 'kustomization.yaml']);
    expect((s.kube.store.get(APPLICATIONS, 'karpenter', 'argocd')!.status as { operationState: { message: string } }).operationState.message).toContain(
      'kustomization.yaml: a kustomization, which the sandbox does not build: keep plain manifests in',
    );
  });

  it('flux: kustomize-controller applies with the Kustomization labels; the Kustomization and its GitRepository record the revision', async () => {
    const scenario = loadScenario('gitops-owned');
    const s = await started({
      scenario: {
        ...scenario,
        nodeClasses: scenario.nodeClasses.map((c) => (c.fieldManager === 'argocd' ? { ...c, fieldManager: 'flux' as const } : c)),
        gitops: { tool: 'flux', intervalSeconds: 60 },
      },
    });
    const cls = s.kube.store.get(CLASSES, 'default')!;
    expect(cls.metadata.labels).toMatchObject({ 'kustomize.toolkit.fluxcd.io/name': 'karpenter', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' });
    expect(ownersOf(s)).toEqual(['kustomize-controller/Apply']);
    const revision = `main@sha1:${s.gitops.syncs[0]!.revision}`;
    const ks = s.kube.store.get(KUSTOMIZATIONS, 'karpenter', 'flux-system')!;
    expect(ks.spec).toMatchObject({ path: './', sourceRef: { kind: 'GitRepository', name: 'fleet-infra' } });
    expect(ks.status).toMatchObject({ lastAppliedRevision: revision, conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded' }] });
    const repo = s.kube.store.get(GIT_REPOSITORIES, 'fleet-infra', 'flux-system')!;
    expect(repo.spec).toMatchObject({ url: 'https://git.sandbox.invalid/fleet-infra.git', ref: { branch: 'main' } });
    expect(repo.status).toMatchObject({ artifact: { revision } });
    applyTerms(s, [{ alias: 'al2023@latest' }], 'kubectl');
    s.gitops.sync();
    expect(ownersOf(s)).toEqual(['kustomize-controller/Apply']);
  });

  it('a scenario whose objects another tool applies is refused, naming the field', () => {
    expect(() => parseScenario(`${GITOPS_OWNED}\ngitops: { tool: flux }\n`, 'x.yaml')).toThrow(
      'nodeClasses[0].fieldManager: gitops.tool is flux: an object argocd applies would be synced by nothing; use flux or kubectl',
    );
    expect(() => parseScenario(`${GITOPS_OWNED.replace('fieldManager: argocd', 'fieldManager: kubectl')}\ngitops: { tool: argocd }\n`, 'x.yaml')).toThrow(
      'gitops.dir: required when no nodeClass or nodePool has fieldManager: argocd',
    );
  });
});
