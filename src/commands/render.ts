// `karp-drift render`: templates -> resolve the AMIs to pin -> render -> multi-document YAML (or a v1 List) on stdout.
// Nothing is applied; the output is what `kubectl apply -f -` takes.
import { logger, type CommandContext } from './context.js';
import type { RenderOptions } from './options.js';
import { checkPinnable, manifestsList, manifestsYaml } from '../manifests/render.js';
import { renderPinned } from './template-plan.js';

export async function render(options: RenderOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  if (options.kubernetes.note) log.info(options.kubernetes.note);
  checkPinnable(options.family, options.pin); // before any AWS call
  const { region, pinned, manifests } = await renderPinned(ctx, log, options, options.pin, {
    ...(options.templates !== undefined ? { dir: options.templates } : {}),
    clusterName: options.clusterName,
    role: options.role,
    family: options.family,
    name: options.name,
  });

  const terms = manifests.nodeClass.spec.amiSelectorTerms.map((t) => t.alias ?? t.id).join(', ');
  const detail = pinned.map((a) => `${a.arch} ${a.id} ${a.name}`).join('; ');
  log.info(`Pinned ${options.family} for Kubernetes ${options.kubernetes.version} in ${region}: ${terms} (${detail})`);
  for (const a of pinned.filter((x) => x.deprecated)) {
    log.warn(`${a.id} (${a.name}) is deprecated or will be within 30 days; nodes launched from it still work, but pin a newer release soon`);
  }
  ctx.io.out(ctx.globals.output === 'json' ? manifestsList(manifests) : manifestsYaml(manifests));
}
