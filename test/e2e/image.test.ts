// The container image and the in-cluster Jobs, as far as this machine can check them without a Docker engine: the
// CLI runs from exactly the files the Dockerfile copies into the image (no node_modules), and the Jobs in deploy/
// run karp-drift commands that exist, as a non-root user, under a ServiceAccount bound to a ClusterRole that
// deploy/rbac.yaml ships, failing at once only on the exit codes docs/reference/exit-codes.md calls not worth retrying.
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Obj {
  kind: string;
  metadata: { name?: string; generateName?: string; namespace?: string; annotations?: Record<string, string> };
  roleRef?: { name: string };
  subjects?: Array<{ name: string; namespace: string }>;
  spec?: {
    podFailurePolicy?: { rules: Array<{ action: string; onExitCodes: { values: number[] } }> };
    template: {
      spec: {
        serviceAccountName: string;
        securityContext: { runAsNonRoot: boolean; runAsUser: number };
        containers: Array<{ name: string; args: string[]; securityContext: { allowPrivilegeEscalation: boolean } }>;
      };
    };
  };
}
const manifests = (path: string) => loadAll(read(path)) as Obj[];

describe('the container image (Dockerfile)', () => {
  it('runs as uid 1000 from the files it copies, and the CLI works from those alone', async () => {
    const dockerfile = read('Dockerfile');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^\nFROM node:24-alpine\n/);
    expect(runtime).toContain('USER 1000:1000');
    const copies = [...runtime.matchAll(/^COPY --from=build \/src\/(\S+) (\S+)$/gm)].map(
      (m) => [m[1]!, m[2]!] as const,
    );
    expect(copies.map(([from]) => from)).toContain('dist');
    const image = mkdtempSync(join(tmpdir(), 'karp-drift-image-'));
    for (const [from, to] of copies) cpSync(join(ROOT, from), join(image, to), { recursive: true });
    const entry = /ENTRYPOINT \["node", "\/opt\/karp-drift\/(\S+)"\]/.exec(runtime)![1]!;
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['status'], 60_000, {}, join(image, entry));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^NODEPOOL +NODECLASS/);
    // The bundled templates are found from the image's root too.
    const render = await karpDrift(
      sandbox,
      ['render', '--to', '1.30', '--cluster-name', 'c', '--role', 'r'],
      60_000,
      {},
      join(image, entry),
    );
    expect(render.code, render.stderr).toBe(0);
  });
});

describe('the in-cluster Jobs (deploy/)', () => {
  const roles = new Set(manifests('deploy/rbac.yaml').map((r) => r.metadata.name));
  it.each(['deploy/wait-job.yaml', 'deploy/argocd-postsync-wait.yaml', 'deploy/upgrade-job.yaml'])(
    '%s',
    async (path) => {
      const all = manifests(path);
      const job = all.find((o) => o.kind === 'Job')!;
      const pod = job.spec!.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(pod.containers[0]!.securityContext.allowPrivilegeEscalation).toBe(false);
      // Retried: 1 (transient) and 5 (still progressing); the others need a human, or (7, a wait) the next window.
      // An upgrade's pod evicted by the rollout it runs (its node drifted) is not a failure: a new pod goes on.
      const failJob = path.includes('wait') ? [2, 3, 4, 6, 7] : [2, 3, 4, 6];
      expect(job.spec!.podFailurePolicy!.rules).toEqual([
        { action: 'FailJob', onExitCodes: { containerName: 'karp-drift', operator: 'In', values: failJob } },
        ...(path.includes('upgrade') ? [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] : []),
      ]);
      // The ServiceAccount is bound (here, or by wait-job.yaml for the hook) to a ClusterRole that rbac.yaml ships.
      const bindings = [...all, ...manifests('deploy/wait-job.yaml')].filter((o) => o.kind === 'ClusterRoleBinding');
      const binding = bindings.find((b) => b.subjects!.some((s) => s.name === pod.serviceAccountName))!;
      expect(roles.has(binding.roleRef!.name)).toBe(true);
      if (pod.serviceAccountName.includes('readonly')) expect(binding.roleRef!.name).toBe('karp-drift-readonly');
      // The command and its flags exist: --help for it answers (an unknown flag would exit 2 before).
      const args = pod.containers[0]!.args;
      const sandbox = await scenario('default');
      const help = await karpDrift(sandbox, [...args, '--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain(`karp-drift ${args[0]!}`);
    },
  );

  it('the PostSync hook is an Argo CD hook that replaces its previous Job', () => {
    const job = manifests('deploy/argocd-postsync-wait.yaml')[0]!;
    expect(job.metadata.annotations).toEqual({
      'argocd.argoproj.io/hook': 'PostSync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
    });
    expect(job.metadata.generateName).toBeDefined();
  });

  it('the wait Job waits, and exits 0 on a cluster with nothing rolling', async () => {
    const sandbox = await scenario('default');
    const args = manifests('deploy/wait-job.yaml').find((o) => o.kind === 'Job')!.spec!.template.spec.containers[0]!
      .args;
    const run = await karpDrift(sandbox, args);
    expect(run.code, run.stderr).toBe(0);
  });
});
