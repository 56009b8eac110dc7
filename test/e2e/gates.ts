// Health gates end to end, shared by gates*.test.ts: the `bad-ami` sandbox, whose newest 1.30 release is bad
// (crash-loop by default; not-ready and never-registers set on the scenario object), and readers of the simulated
// Karpenter's own record of the drift commands it started and the objects in its store, not karp-drift's account.
import { onTestFinished } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { loadScenario } from '../../src/sandbox/scenarios/load.js';
import type { KubeObject } from '../../src/sandbox/kube-api/types.js';
import type { ScenarioBadAmi } from '../../src/sandbox/scenarios/schema.js';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import type { CliRun } from './cli-sandbox.js';

type Ev = CliRun['events'][number];
interface Finding {
  code: string;
  nodePool?: string;
  ami?: string;
  message: string;
  evidence: string[];
}

export const CANARY = ['upgrade', '--to', '1.30', '--canary', 'canary', '--yes'];
/** An older 1.30 release, good whatever the newest does (the scenario's seed fixes the catalog). */
export const GOOD = 'v20260703';

/**
 * Speed 120: Karpenter's own pace (one or two commands of a NodePool in flight while replacements come up) makes the
 * good release's 17 nodes take about half an hour simulated.
 */
export async function badAmi(fault?: ScenarioBadAmi): Promise<Sandbox> {
  const scenario = loadScenario('bad-ami');
  if (fault) scenario.faults.badAmi = fault;
  const sandbox = await startSandbox({ scenario, speed: 120 });
  onTestFinished(() => sandbox.stop());
  return sandbox;
}

export const claims = (sandbox: Sandbox, pool?: string) =>
  sandbox.kube.store
    .list('nodeclaims.karpenter.sh')
    .filter((c) => pool === undefined || c.metadata.labels?.['karpenter.sh/nodepool'] === pool);
export const imageOf = (c: KubeObject) => (c.status as { imageID?: string } | undefined)?.imageID;

/** The images each NodeClaim runs now, per NodePool (launched ones only). */
export function imagesByPool(sandbox: Sandbox): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const c of claims(sandbox)) {
    const image = imageOf(c);
    if (image === undefined || c.metadata.deletionTimestamp !== undefined) continue;
    (out[c.metadata.labels?.['karpenter.sh/nodepool'] ?? ''] ??= []).push(image);
  }
  return out;
}

export function nodePools(sandbox: Sandbox): Record<string, { budgets: unknown; hold?: string }> {
  return Object.fromEntries(
    sandbox.kube.store.list('nodepools.karpenter.sh').map((p) => [
      p.metadata.name ?? '',
      {
        budgets: (p.spec as { disruption?: { budgets?: unknown } }).disruption?.budgets,
        ...(p.metadata.annotations?.[HOLD_ANNOTATION] !== undefined
          ? { hold: p.metadata.annotations[HOLD_ANNOTATION] }
          : {}),
      },
    ]),
  );
}

export const startedIn = (sandbox: Sandbox, pool: string) =>
  sandbox.simulator.disruptions.entries().filter((d) => d.nodePool === pool);
export const gates = (run: CliRun) => run.events.filter((e) => e.type === 'gate');
export const findingsOf = (e: Ev | undefined) => (e?.findings ?? []) as Finding[];

