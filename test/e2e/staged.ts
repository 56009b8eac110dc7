// Staged rollouts end to end, shared by staged*.test.ts: the `staged` sandbox (canary 3 nodes; general 24 with its own
// budgets; batch 6 whose budgets Argo CD owns, so it is held with do-not-disrupt on its nodes), read as Karpenter
// leaves it, and the built CLI as a child whose NDJSON events a test can act on as they come.
import { spawn } from 'node:child_process';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { HOLD_ANNOTATION } from '../../src/apis/budget-hold.js';
import { NODE_HOLD_ANNOTATION } from '../../src/karpenter/views.js';
import { MAIN, type CliRun } from './cli-sandbox.js';
import { checkRunOutput } from './contracts.js';

type Ev = CliRun['events'][number];

export const STAGED = ['upgrade', '--to', '1.30', '--canary', 'canary', '--waves', '1,10%,100%', '--yes', '-o', 'json'];
export const STAGE_POOLS: Record<number, string[]> = { 1: ['canary'], 2: ['batch', 'general'] };

export function budgetsOf(sandbox: Sandbox): Record<string, unknown> {
  return Object.fromEntries<unknown>(
    sandbox.kube.store.list('nodepools.karpenter.sh').map((p) => [
      p.metadata.name ?? '',
      {
        budgets: (p.spec as { disruption?: { budgets?: unknown } }).disruption?.budgets,
        hold: p.metadata.annotations?.[HOLD_ANNOTATION],
      },
    ]),
  );
}

/** Each NodePool's managedFields but Karpenter's status entry: who owns its spec (its budgets) and metadata. */
export function managedFieldsOf(sandbox: Sandbox): Record<string, unknown> {
  return Object.fromEntries<unknown>(
    sandbox.kube.store
      .list('nodepools.karpenter.sh')
      .map((p) => [p.metadata.name ?? '', p.metadata.managedFields?.filter((m) => m.subresource !== 'status')]),
  );
}

export const heldNodes = (sandbox: Sandbox) =>
  sandbox.kube.store.list('nodes').filter((n) => n.metadata.annotations?.[NODE_HOLD_ANNOTATION] !== undefined);

/** The CLI as a child, with its NDJSON events as they come, so a test can act at a given step. */
export function follow(sandbox: Sandbox, args: string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...sandbox.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Ev[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const l of lines) if (l.trim() !== '') events.push(JSON.parse(l) as Ev);
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // Once it exits and its output is read to the end, the output is checked against the contracts (contracts.ts), as
  // karpDrift's is.
  const exited = new Promise<number | null>((resolve, reject) =>
    child.on('close', (code) => {
      try {
        checkRunOutput(args, [...events.map((e) => JSON.stringify(e)), stdout].join('\n'));
        resolve(code);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    }),
  );
  return {
    child,
    events,
    stderr: () => stderr,
    exited,
    async until(pred: (e: Ev) => boolean, timeoutMs = 60_000): Promise<Ev> {
      for (let waited = 0; waited < timeoutMs; waited += 25) {
        const found = events.find(pred);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no such event within ${timeoutMs} ms; stderr:\n${stderr}`);
    },
  };
}

