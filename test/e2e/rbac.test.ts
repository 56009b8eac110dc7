// The RBAC table of docs/rbac-and-iam.md, command by command and role by role, on the sandbox: deploy/rbac.yaml is applied to its API
// server (which authorizes every request and every SelfSubjectAccessReview as Kubernetes' RBAC does), each shipped
// ClusterRole is bound to a user, and the built CLI runs as that user. An allowed command ends 0 and a refused one
// with the code the table names, and either way the API server refuses none of its requests: the preflight asked
// exactly what the run then did, so nothing is refused halfway.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import { rawRequest, userKubeconfig } from '../sandbox/kube-api-sandbox.js';
import { httpWrites, karpDrift, scenario } from './cli-sandbox.js';

const RBAC = 'rbac.authorization.k8s.io';
const TESTER = { name: 'karp-drift-test', groups: ['karp-drift-operators'] };
const TEMPLATES = new URL('../../templates', import.meta.url).pathname;

/** The table of commands × roles (docs/rbac-and-iam.md): each row's cells by role, as exit codes (allowed: 0). */
function readmeTable(): { roles: string[]; rows: Map<string, Map<string, { cell: string; code: number }>> } {
  const readme = readFileSync(new URL('../../docs/rbac-and-iam.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## RBAC\n'), readme.indexOf('\n## ', readme.indexOf('\n## RBAC\n') + 1));
  const lines = section.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| command |'));
  const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
  const roles = cells(lines[header]!).slice(1).map((r) => r.replace(/`/g, ''));
  const rows = new Map<string, Map<string, { cell: string; code: number }>>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [command = '', ...outcomes] = cells(line);
    const codes = outcomes.map((o) => (o === 'allowed' ? 0 : Number(/^refused \(exit (\d+)\)$/.exec(o)?.[1] ?? NaN)));
    rows.set(command.replace(/`/g, ''), new Map(roles.map((r, i) => [r, { cell: outcomes[i]!, code: codes[i]! }])));
  }
  return { roles, rows };
}

interface Row {
  /** What the sandbox's admin runs first, so the command has something to do (a rollout to follow, holds to lift). */
  before?: string[][];
  args: string[];
}

const upgrade = ['upgrade', '--to', '1.30', '--yes'];
/** A daily window, in Karpenter's form, opening `fromNow` hours from the current one (0: open now, for 2 h). */
const windowIn = (fromNow: number) => `0 ${(new Date().getUTCHours() + fromNow) % 24} * * */2h`;
const ROWS: Record<string, Row> = {
  plan: { args: ['plan', '--to', '1.30'] },
  status: { args: ['status'] },
  wait: { before: [[...upgrade, '--no-wait']], args: ['wait'] },
  // The admin's upgrade leaves a record; the role reads it (and the other slots) by name.
  history: { before: [[...upgrade, '--no-wait']], args: ['history'] },
  'upgrade (staged and gated by default)': { args: upgrade },
  'upgrade --no-wait': { args: [...upgrade, '--no-wait'] },
  'upgrade --dry-run': { args: [...upgrade, '--dry-run'] },
  'upgrade --canary/--waves': { args: [...upgrade, '--canary', 'system', '--waves', '1,100%', '--soak', '0s'] },
  // Holds and the windows' budgets written, nothing applied; allowed is exit 0, as the CronJob runs it.
  'upgrade --window, outside the window': { args: [...upgrade, '--window', windowIn(12), '--window-exit-code', '0'] },
  'upgrade --window, inside it': { args: [...upgrade, '--window', windowIn(0)] },
  'upgrade --templates': {
    args: [...upgrade, '--templates', TEMPLATES, '--cluster-name', 'sandbox', '--role', 'KarpenterNodeRole-sandbox', '--allow-create'],
  },
  rollback: { before: [[...upgrade, '--no-wait']], args: ['rollback', '--yes'] },
  'rollback --dry-run': { before: [[...upgrade, '--no-wait']], args: ['rollback', '--yes', '--dry-run'] },
  'rollback --waves': { before: [[...upgrade, '--no-wait']], args: ['rollback', '--yes', '--waves', '1,100%'] },
  pause: { args: ['pause', '--nodepool', 'general'] },
  'pause --hold-with node': { args: ['pause', '--nodepool', 'arm', '--hold-with', 'node'] },
  resume: { before: [['pause', '--nodepool', 'general'], ['pause', '--nodepool', 'arm', '--hold-with', 'node']], args: ['resume'] },
};

/** A sandbox with deploy/rbac.yaml applied by its admin over HTTP, `role` bound to the tester; the tester's env. */
async function sandboxAs(role: string): Promise<{ sandbox: Sandbox; env: Record<string, string> }> {
  const sandbox = await scenario('default');
  const post = async (resource: string, body: unknown) => {
    const res = await rawRequest(sandbox.kube, 'POST', `/apis/${RBAC}/v1/${resource}`, {
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status, res.body).toBe(201);
  };
  for (const object of loadAll(readFileSync(new URL('../../deploy/rbac.yaml', import.meta.url), 'utf8')) as KubeObject[])
    await post('clusterroles', object);
  await post('clusterrolebindings', {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: `${role}-operators` },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: RBAC, kind: 'Group', name: 'karp-drift-operators' }],
  });
  const dir = sandbox.env.KUBECONFIG!.replace(/[^/]+$/, '');
  const { kubeconfigPath } = await userKubeconfig(sandbox.kube, TESTER, join(dir, 'tester-kubeconfig'));
  return { sandbox, env: { KUBECONFIG: kubeconfigPath } };
}

const table = readmeTable();

describe("deploy/rbac.yaml on an RBAC authorizer: docs/rbac-and-iam.md's table, command by command", () => {
  it('has a row for every command this test runs, and a column for every ClusterRole deploy/rbac.yaml ships', () => {
    expect([...table.rows.keys()].sort()).toEqual(Object.keys(ROWS).sort());
    const shipped = (loadAll(readFileSync(new URL('../../deploy/rbac.yaml', import.meta.url), 'utf8')) as KubeObject[]).map((o) => o.metadata.name);
    expect(table.roles.sort()).toEqual([...shipped].sort());
    for (const outcomes of table.rows.values()) expect([...outcomes.values()].every((o) => Number.isInteger(o.code))).toBe(true);
  });

  const cases = [...table.rows].flatMap(([command, outcomes]) =>
    [...outcomes].map(([role, { cell, code }]) => ({ command, role, cell, code })),
  );
  it.each(cases)('$command with $role: $cell', async ({ command, role, code }) => {
    const row = ROWS[command]!;
    const { sandbox, env } = await sandboxAs(role);
    for (const args of row.before ?? []) {
      const prepared = await karpDrift(sandbox, args);
      expect(prepared.code, prepared.stderr).toBe(0);
    }
    const from = sandbox.kube.requests.length;
    const writes = httpWrites(sandbox);
    const run = await karpDrift(sandbox, row.args, 90_000, env);
    expect(run.code, run.stderr).toBe(code);
    const sent = sandbox.kube.requests.slice(from);
    expect(sent.filter((r) => r.code === 403).map((r) => `${r.verb} ${r.resource ?? r.path} ${r.name ?? ''}`)).toEqual([]);
    if (code === 0) return;
    expect(run.stderr).toContain('permission(s) this run needs; nothing was changed');
    expect(run.stderr).toContain('next: bind the ClusterRole karp-drift-upgrade');
    expect(httpWrites(sandbox)).toBe(writes);
  }, 120_000);
});

describe('the preflight names what RBAC rules name', () => {
  it('shows the table with namespace/name for the refused role', async () => {
    const { sandbox, env } = await sandboxAs('karp-drift-readonly');
    const run = await karpDrift(sandbox, ['pause', '--nodepool', 'general'], 60_000, env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/get\s+leases\.coordination\.k8s\.io\s+kube-system\/karp-drift\s+yes/);
    expect(run.stderr).toMatch(/create\s+leases\.coordination\.k8s\.io\s+kube-system\/\*\s+no/);
    expect(run.stderr).toMatch(/update\s+leases\.coordination\.k8s\.io\s+kube-system\/karp-drift\s+no/);
    expect(run.stderr).toMatch(/patch\s+nodepools\.karpenter\.sh\s+general\s+no\s+hold drift with a budget/);
    expect(run.stderr).toMatch(/create\s+events\s+default\/\*\s+no/);
  });
});

describe('secrets', () => {
  it('never prints the kubeconfig token, even with -v', async () => {
    const sandbox = await scenario('default');
    const run = await karpDrift(sandbox, ['upgrade', '--to', '1.30', '--yes', '-v', '--no-wait']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('debug:');
    expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.kube.token);
    expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.env.AWS_SECRET_ACCESS_KEY);
  });
});
