// `karp-drift amis`: selection -> SSM + EC2 (ami/resolve.ts) -> table or JSON on stdout; notes and warnings on stderr.
import { logger, type CommandContext } from './context.js';
import type { AmisOptions } from './options.js';
import { resolveAmis } from '../ami/resolve.js';
import { amisJson, amisTable } from '../report/amis.js';

export async function amis(options: AmisOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  if (options.kubernetes.note) log.info(options.kubernetes.note);
  const { region, amis, policy } = await resolveAmis(
    options,
    { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs },
    log,
  );
  for (const a of amis.filter((x) => x.deprecated)) {
    log.warn(
      `${a.id} (${a.family} ${a.arch} ${a.variant}, ${a.name}): ${a.problems.join('; ')}; Karpenter can still launch it, but pin a newer release soon`,
    );
  }
  const result = { kubernetesVersion: options.kubernetes.version, region, amis, ...(policy !== undefined ? { policy } : {}) };
  ctx.io.out(ctx.globals.output === 'json' ? amisJson(result) : amisTable(result));
}
