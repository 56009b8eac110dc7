// `karp-drift amis` output: a kubectl-style table, or the one JSON document scripts read (docs/amis-and-templates.md).
import type { ResolvedAmi } from '../ami/verify.js';
import type { RecordedPolicy } from '../ami/release-policy.js';
import { columns } from '../text/table.js';

export interface AmisResult {
  kubernetesVersion: string;
  region: string;
  amis: readonly ResolvedAmi[];
  /** --release latest~N / --min-age: what each family's release was chosen against (promotion pins the AMIs as listed). */
  policy?: RecordedPolicy;
}

const HEADERS = ['FAMILY', 'ARCH', 'VARIANT', 'RELEASE', 'AMI-ID', 'NAME', 'STATE'];

/** Columns padded like `kubectl get` (three spaces); a deprecated image reads `available,deprecated`, as kubectl writes `Ready,SchedulingDisabled`. */
export function amisTable(result: AmisResult): string {
  const rows = result.amis.map((a) => [
    a.family,
    a.arch,
    a.variant,
    a.release,
    a.id,
    a.name,
    a.deprecated ? `${a.state},deprecated` : a.state,
  ]);
  return columns(HEADERS, rows);
}

/** What names one resolved AMI in every JSON document (`amis`, upgrade's `resolved` event): what --amis-file reads. */
export function amiIdentity(a: Pick<ResolvedAmi, 'family' | 'arch' | 'variant' | 'release' | 'id' | 'name'>) {
  return { family: a.family, arch: a.arch, variant: a.variant, release: a.release, id: a.id, name: a.name };
}

/** The documented keys first and in order; extra detail after them. */
export function amisJson(result: AmisResult): string {
  const doc = {
    kubernetesVersion: result.kubernetesVersion,
    region: result.region,
    amis: result.amis.map((a) => ({
      ...amiIdentity(a),
      parameter: a.parameter,
      state: a.state,
      deprecated: a.deprecated,
      releaseVersion: a.releaseVersion,
      architecture: a.architecture,
      deprecationTime: a.deprecationTime,
      creationDate: a.creationDate,
      problems: a.problems,
    })),
    ...(result.policy !== undefined ? { releasePolicy: result.policy } : {}),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
