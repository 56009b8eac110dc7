// A scenario's `faults.badAmi` resolved against the AMI catalog: the images of the bad release, which the simulator
// then recognises by a NodeClaim's status.imageID (karpenter/bad-ami.ts). Unless the fault names a release, the bad
// one is the newest of the control plane's minor for each affected class's family: what SSM's
// `…/recommended/image_id` points at, so what `karp-drift upgrade --to <minor>` pins by default. Every other
// release, an older one of the same minor included, stays good.
import type { AmiFamily } from '../../ami/families.js';
import { UsageError } from '../../errors.js';
import type { AmiCatalog, CatalogRelease } from '../aws/types.js';
import type { BadAmi } from '../karpenter/context.js';
import type { BuiltNodeClass } from './build.js';
import type { Scenario } from './schema.js';

/** not-ready: how long a node looks healthy before its kubelet reports NotReady. */
const DEFAULT_AFTER_SECONDS = 60;

export function badAmiFault(scenario: Scenario, catalog: AmiCatalog, built: BuiltNodeClass[]): BadAmi | undefined {
  const fault = scenario.faults.badAmi;
  if (!fault) return undefined;
  const names = new Set(fault.nodeClasses ?? scenario.nodeClasses.map((c) => c.name));
  const families = new Set(scenario.nodeClasses.filter((c) => names.has(c.name)).map((c) => c.family));
  const imageIds = new Set<string>();
  for (const family of families)
    for (const r of badReleases(catalog, family, scenario.controlPlaneVersion, fault.release)) imageIds.add(r.imageId);
  // A class whose nodes already run the bad release would be broken before the scenario starts, which is not what
  // the fault says: it reaches only the nodes launched from the release.
  for (const c of built) {
    if (names.has(c.name) && Object.values(c.imageIds).some((id) => imageIds.has(id)))
      throw new UsageError(
        `faults.badAmi.release: the nodes of nodeClass "${c.name}" already run release ${c.release}, and a bad AMI reaches only nodes launched from it: give the class an older release or kubernetesVersion, or name another bad release`,
      );
  }
  return {
    symptom: fault.symptom,
    imageIds,
    ...(fault.nodeClasses ? { nodeClasses: new Set(fault.nodeClasses) } : {}),
    afterSeconds: fault.afterSeconds ?? DEFAULT_AFTER_SECONDS,
  };
}

/** Every arch and variant of the family's bad release for the minor: the named one, else the newest. */
function badReleases(
  catalog: AmiCatalog,
  family: AmiFamily,
  kubernetesVersion: string,
  release: string | undefined,
): CatalogRelease[] {
  const series = catalog.releases.filter((r) => r.family === family && r.kubernetesVersion === kubernetesVersion);
  const newest = series.reduce<CatalogRelease | undefined>((a, r) => (a && a.created >= r.created ? a : r), undefined);
  // Bottlerocket's releases may be written with a leading v, as its alias tags are (node-classes.ts does the same).
  const wanted = release === undefined ? newest?.release : release.replace(/^v(?=\d+\.)/, '');
  const matched = series.filter((r) => r.release === wanted);
  if (matched.length === 0) {
    const known = [...new Set(series.map((r) => r.release))].join(', ') || 'none';
    throw new UsageError(
      `faults.badAmi.release: the AMI catalog has no ${family} ${kubernetesVersion} release ${release ?? ''} (it has: ${known})`,
    );
  }
  return matched;
}
