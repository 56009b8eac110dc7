// `karp-drift pin`: read the files → what they deploy (gitops/build.ts) → the AMIs, resolved and checked exactly as
// `plan` resolves them → each unit's plan → the files that decide the terms, changed in place → print, write.
// With --check nothing is written, and files that do not pin what the policy picks now exit 1.
import { writeFile } from 'node:fs/promises';
import { FilesDifferError, RefusedError, UsageError } from '../errors.js';
import { buildUnits } from '../gitops/build.js';
import { selectedImages, unitInventory } from '../gitops/file-inventory.js';
import { parseValuesPath, valuesUnit } from '../gitops/helm-values.js';
import type { Unit } from '../gitops/objects.js';
import { pinChanges, type PinResult } from '../gitops/pin.js';
import type { ImageView } from '../ami/verify.js';
import type { Cluster } from '../cluster/client.js';
import type { Inventory } from '../karpenter/views.js';
import type { Logger } from '../logger.js';
import type { PlanSource } from '../plan/promotion.js';
import { windowFlags } from '../stages/request.js';
import { pinJson, pinText, pinTfvars, outcomeLine, type PinReport } from '../report/pin.js';
import { pinMarkdown } from '../report/pin-markdown.js';
import { logger, type CommandContext } from './context.js';
import type { PinOptions } from './options.js';
import { readPinCluster, type PinCluster } from './pin-cluster.js';
import { readSources } from './pin-sources.js';
import { readAmisFile, resolveTargets } from './planning.js';
import { pinTested } from './pin-promotion.js';

export async function pin(options: PinOptions, ctx: CommandContext): Promise<void> {
  const log = logger(ctx.io, ctx.globals);
  const amisFile = options.plan?.amisFile !== undefined ? await readAmisFile(options.plan.amisFile) : undefined;
  const { files, units } = readUnits(options);
  const cluster = options.plan !== undefined ? await readPinCluster(ctx, options.cluster, log) : { none: 'no --to' };
  try {
    const live = 'inventory' in cluster ? cluster.inventory : undefined;
    const images = options.plan !== undefined ? await describeImages(units, ctx, log) : [];
    const inventories = units.map((u) => unitInventory(u, images, live));
    const here = 'cluster' in cluster ? cluster.cluster : undefined;
    const { amis, source } = options.plan !== undefined ? await targets(options, inventories, amisFile, here, ctx, log) : { amis: [], source: undefined };
    const p = options.plan;
    const result = pinChanges({
      files,
      units,
      inventories,
      amis,
      options: {
        to: p?.kubernetes.version ?? '',
        pin: p?.pin ?? 'id',
        release: p?.release ?? 'latest',
        ...(p?.minAge !== undefined ? { minAge: p.minAge.text } : {}),
        fieldManager: 'karp-drift',
        ...(p?.allowDowngrade === true ? { allowDowngrade: true } : {}),
        ...(p?.allowDeprecated === true ? { allowDeprecated: true } : {}),
        ...(p?.replaceCustomAmis === true ? { replaceCustomAmis: true } : {}),
        ...(source !== undefined ? { source } : {}),
        withoutCluster: live === undefined,
      },
      ...(options.windows !== undefined ? { windows: options.windows } : {}),
      terms: p !== undefined,
      now: new Date(),
    });
    await report(options, ctx, reportOf(options, result, source, cluster));
  } finally {
    if ('cluster' in cluster) cluster.cluster.close();
  }
}

/** The files read and built; a values file without --values-path, or nothing pin could change, is exit 2. */
function readUnits(options: PinOptions): { files: ReturnType<typeof buildUnits>['files']; units: Unit[] } {
  const { tree, values } = readSources(options.paths);
  if (values.length > 0 && options.valuesPath === undefined) {
    throw new UsageError(`${values.join(', ')} ${values.length === 1 ? 'has' : 'have'} no Kubernetes object: a Helm values file needs --values-path; nothing was changed`, {
      hint: 'e.g. --values-path karpenter.nodeClass.amiSelectorTerms (where the chart reads the terms from)',
    });
  }
  const keys = options.valuesPath !== undefined ? parseValuesPath(options.valuesPath) : [];
  const built = buildUnits(tree);
  const units = [...built.units, ...values.map((v) => valuesUnit(tree.files.get(v)!, keys, options.valuesPath!))];
  if (options.valuesPath !== undefined && values.length === 0) {
    throw new UsageError(`--values-path ${options.valuesPath} names a place in a Helm values file, and none was given; nothing was changed`, {
      hint: 'name the values file (a file without apiVersion and kind) beside the other paths',
    });
  }
  const kinds = new Set(units.flatMap((u) => u.objects.map((o) => o.kind)));
  const wanted = options.plan !== undefined ? 'EC2NodeClass' : 'NodePool';
  if (!kinds.has(wanted)) {
    throw new UsageError(`no ${wanted} in ${options.paths.join(', ')}: there is nothing to pin; nothing was changed`, {
      hint: 'name the manifests, kustomization directories or values files your GitOps tool syncs the Karpenter classes from',
    });
  }
  return { files: built.files, units };
}

async function describeImages(units: readonly Unit[], ctx: CommandContext, log: Logger): Promise<ImageView[]> {
  const { describeSelectedImages } = await import('../ami/resolve.js');
  const aws = { region: ctx.globals.region, profile: ctx.globals.profile, requestTimeoutMs: ctx.globals.requestTimeoutMs };
  const selected = selectedImages(units);
  const images = await describeSelectedImages(selected, aws, log);
  // An image EC2 no longer has tells no architecture: the class then needs what its NodePools name, else amd64.
  const gone = selected.ids.filter((id) => !images.some((i) => i.id === id));
  if (gone.length > 0) log.warn(`EC2 does not describe ${gone.join(', ')}, selected by id in the files: the architectures those classes need come from their NodePools' requirements, else amd64`);
  return images;
}

async function targets(
  options: PinOptions,
  inventories: readonly Inventory[],
  amisFile: Awaited<ReturnType<typeof readAmisFile>> | undefined,
  here: Cluster | undefined,
  ctx: CommandContext,
  log: Logger,
): Promise<{ amis: PinResultAmis; source: PlanSource }> {
  const plan = options.plan!;
  const tested = await pinTested(plan, inventories, amisFile, here, ctx, log);
  const { resolved, source } = await resolveTargets(inventories, plan, { tested, kept: [] }, ctx, log);
  return { amis: resolved.amis, source };
}
type PinResultAmis = Parameters<typeof pinChanges>[0]['amis'];

function reportOf(options: PinOptions, result: PinResult, source: PlanSource | undefined, cluster: PinCluster): PinReport {
  const p = options.plan;
  return {
    result,
    ...(p !== undefined ? { to: p.kubernetes.version } : {}),
    pin: p?.pin ?? 'id',
    release: p?.release ?? 'latest',
    ...(source !== undefined ? { source } : {}),
    ...('identity' in cluster ? { cluster: cluster.identity } : { noCluster: cluster.none }),
    check: options.check,
    ...(options.windows !== undefined ? { windowFlags: windowFlags(options.windows) } : {}),
  };
}

/** Prints, writes the files (not with --check, nor when a check refuses), the pull request's body and the tfvars. */
async function report(options: PinOptions, ctx: CommandContext, r: PinReport): Promise<void> {
  ctx.io.out(ctx.globals.output === 'json' ? pinJson(r) : pinText(r, { color: ctx.globals.color }));
  const { result } = r;
  if (result.blocked) {
    const codes = [...new Set(result.checks.filter((c) => c.level === 'error').map((c) => c.code))].join(', ');
    throw new RefusedError(`the plan has error-level check(s): ${codes}; no file was changed`, { hint: 'fix what the checks say, then pin again' });
  }
  if (!options.check) {
    for (const f of result.files) await writeFile(f.path, f.after);
  }
  if (options.prBody !== undefined) await writeFile(options.prBody, pinMarkdown(r));
  if (options.tfvars !== undefined && !options.check) await writeFile(options.tfvars.path, pinTfvars(r, options.tfvars.variable));
  if (options.check && result.files.length > 0) {
    throw new FilesDifferError(outcomeLine(r).replace(/\.$/, ''), { hint: `run the same pin without --check to change them (${result.files.map((f) => f.path).join(', ')})` });
  }
}
