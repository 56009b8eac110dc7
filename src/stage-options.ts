// Flags → options for the commands that hold and release drift: `pause`, `resume` (and the staged `upgrade`).
import { z } from 'zod';
import { DNS1123, parseWith } from './options.js';
import type { HoldWith } from './stages/hold-mechanism.js';
import { LEASE_NAMESPACE } from './stages/lock.js';

export interface LockOptions {
  /** --lock-namespace: where the cluster lock's Lease lives. */
  lockNamespace: string;
}

export interface PauseOptions extends LockOptions {
  /** --nodepool (repeatable); empty: every NodePool. */
  nodePools: string[];
  holdWith: HoldWith;
  forceConflicts: boolean;
}

export type ResumeOptions = LockOptions & { nodePools: string[] };

const nodePoolNames = z
  .array(z.string())
  .default([])
  .transform((names, ctx) => {
    const bad = names.find((n) => !DNS1123.test(n));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `--nodepool ${JSON.stringify(bad)} is not a NodePool name (a lowercase DNS-1123 name)`,
      });
      return z.NEVER;
    }
    return [...new Set(names)];
  });

const lockNamespace = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: 'is not a namespace name (a lowercase DNS-1123 label)' })
  .default(LEASE_NAMESPACE);

const holdWith = z.enum(['auto', 'budget', 'node'], { message: 'must be auto, budget or node' }).default('auto');

export function parsePauseOptions(flags: Record<string, unknown>): PauseOptions {
  const o = parseWith(
    z.object({
      nodepool: nodePoolNames,
      holdWith,
      forceConflicts: z.boolean().default(false),
      lockNamespace,
    }),
    flags,
  );
  return {
    nodePools: o.nodepool,
    holdWith: o.holdWith,
    forceConflicts: o.forceConflicts,
    lockNamespace: o.lockNamespace,
  };
}

export function parseResumeOptions(flags: Record<string, unknown>): ResumeOptions {
  const o = parseWith(z.object({ nodepool: nodePoolNames, lockNamespace }), flags);
  return { nodePools: o.nodepool, lockNamespace: o.lockNamespace };
}
