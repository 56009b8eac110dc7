// `karp-drift render`: templates -> resolve the AMIs to pin -> render -> multi-document YAML (or a v1 List) on stdout.
// Nothing is applied; the output is what `kubectl apply -f -` takes.
import { logger, type CommandContext } from './context.js';
import type { RenderOptions } from './options.js';
import { resolveAmis } from '../ami/resolve.js';
import { checkPinnable, manifestsList, manifestsYaml, pinnedArches, renderManifests } from '../manifests/render.js';
import { readTemplates } from '../manifests/templates.js';

export async function render(options: RenderOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  if (options.kubernetes.note) log.info(options.kubernetes.note);
  checkPinnable(options.family, options.pin); // before any AWS call
  const templates = await readTemplates(options.templates);
  const arches = pinnedArches(templates, options.family);

  // Only the standard variant: id terms carry no variant, and Karpenter keeps one AMI per arch (DOMAIN.md §1.2).
  const { region, amis } = await resolveAmis(
    {
      kubernetes: options.kubernetes,
      families: [options.family],
      arches,
      variants: ['standard'],
      expand: { families: false, arches: false, variants: false },
      release: options.release,
    },
    { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs },
    log,
  );
  const pinned = amis.filter((a) => a.family === options.family && a.variant === 'standard');
  const manifests = renderManifests(templates, {
    name: options.name,
    clusterName: options.clusterName,
    role: options.role,
    family: options.family,
    pin: options.pin,
    amis: pinned,
  });

  const terms = manifests.nodeClass.spec.amiSelectorTerms.map((t) => t.alias ?? t.id).join(', ');
  const detail = pinned.map((a) => `${a.arch} ${a.id} ${a.name}`).join('; ');
  log.info(`Pinned ${options.family} for Kubernetes ${options.kubernetes.version} in ${region}: ${terms} (${detail})`);
  for (const a of pinned.filter((x) => x.deprecated)) {
    log.warn(`${a.id} (${a.name}) is deprecated or will be within 30 days; nodes launched from it still work, but pin a newer release soon`);
  }
  ctx.io.out(ctx.globals.output === 'json' ? manifestsList(manifests) : manifestsYaml(manifests));
}
