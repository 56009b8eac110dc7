// Flags → options for the commands that hold and release drift: `pause`, `resume` (and the staged `upgrade`).
import { z } from 'zod';
import { UsageError } from './errors.js';
import { DNS1123, parseDuration, parseWith } from './options.js';
import type { HoldWith } from './stages/hold-mechanism.js';
import { LEASE_NAMESPACE } from './stages/lock.js';
import type { StagedRequest } from './stages/stage-plan.js';
import { parseWaves, type WaveStep } from './stages/waves.js';

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

const nodePoolNamesOf = (flag: string) =>
  z
    .array(z.string())
    .default([])
    .transform((names, ctx) => {
      const bad = names.find((n) => !DNS1123.test(n));
      if (bad !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `${flag} ${JSON.stringify(bad)} is not a NodePool name (a lowercase DNS-1123 name)`,
        });
        return z.NEVER;
      }
      return [...new Set(names)];
    });
const nodePoolNames = nodePoolNamesOf('--nodepool');

const NOT_A_NAMESPACE = 'is not a namespace name (a lowercase DNS-1123 label)';
const lockNamespace = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: NOT_A_NAMESPACE })
  .max(63, { message: NOT_A_NAMESPACE })
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

/**
 * `upgrade`/`plan` --canary, --waves, --soak, --hold-with: a staged rollout when --canary or --waves is given;
 * undefined otherwise (upgrade behaves as without stages). --soak and --hold-with alone pace nothing: an error that
 * says so, rather than a flag silently ignored.
 */
export function parseStagedOptions(flags: Record<string, unknown>): StagedRequest | undefined {
  const canary = parseWith(z.object({ canary: nodePoolNamesOf('--canary') }), { canary: flags.canary }).canary;
  const wavesText = typeof flags.waves === 'string' ? flags.waves : undefined;
  if (canary.length === 0 && wavesText === undefined) {
    const lone = (['soak', 'holdWith'] as const).find((k) => flags[k] !== undefined);
    if (lone !== undefined) {
      const name = lone === 'soak' ? '--soak' : '--hold-with';
      throw new UsageError(`${name} paces a staged rollout, and there is none: give --waves or --canary with it`, {
        hint: 'e.g. --canary <nodepool> --waves 1,10%,100% --soak 15m',
      });
    }
    return undefined;
  }
  let waves: WaveStep[] = [{ kind: 'percent', value: 100, text: '100%' }];
  if (wavesText !== undefined) {
    const parsed = parseWaves(wavesText);
    if ('error' in parsed)
      throw new UsageError(`--waves: ${parsed.error}`, {
        hint: 'e.g. --waves 1,10%,100% (cumulative: one node, then up to 10 %, then the rest)',
      });
    waves = parsed.steps;
  }
  const soakText = typeof flags.soak === 'string' ? flags.soak : '0s';
  const soakMs = parseDuration(soakText, '--soak');
  const { holdWith: how } = parseWith(z.object({ holdWith }), { holdWith: flags.holdWith });
  return { canary, waves, soakMs, holdWith: how };
}

/** --lock-namespace of upgrade and rollback. */
export function parseLockOptions(flags: Record<string, unknown>): LockOptions {
  return parseWith(z.object({ lockNamespace }), { lockNamespace: flags.lockNamespace });
}
