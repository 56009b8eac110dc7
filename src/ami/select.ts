// Pure: expands an AmiSelection (`--family/--arch/--variant/--release`) into the (family, arch, variant) queries to
// resolve. A combination that does not exist is skipped when it came from `all` (including the default `--arch all`)
// and refused when every part of it was named; whatever was named and found nothing is refused too.
import { FAMILIES, familyVersionProblem, variantExists, type AmiFamily, type Arch, type Variant } from './families.js';
import type { AmiQuery } from './parameters.js';
import { UsageError } from '../errors.js';

export interface KubernetesMinor {
  /** "1.31" */
  version: string;
  /** Set when the input carried more than a minor, e.g. a patch. */
  note?: string;
}

export interface AmiSelection {
  kubernetes: KubernetesMinor;
  families: AmiFamily[];
  arches: Arch[];
  variants: Variant[];
  /** True for a list that came from `all`: combinations that do not exist are skipped, not refused. */
  expand: { families: boolean; arches: boolean; variants: boolean };
  release: string;
  /** --min-age: only releases at least this old (release-policy.ts). */
  minAge?: { text: string; ms: number };
}

const RELEASE_FORMS: Record<'dated' | 'semver', string> = {
  dated: 'vYYYYMMDD, e.g. v20241109',
  semver: 'X.Y.Z, e.g. 1.26.1',
};

// Karpenter's alias versions: AL2/AL2023 pin a dated release of amazon-eks-ami, Bottlerocket a semver release
// (DOMAIN.md §1.2 "Alias families and versions"). parseRelease has already normalised the `v`.
function releaseForm(family: AmiFamily): 'dated' | 'semver' | undefined {
  if (family === 'al2' || family === 'al2023') return 'dated';
  if (family === 'bottlerocket') return 'semver';
  return undefined;
}

interface Problem {
  message: string;
  hint?: string;
}

/** Why `family` cannot be asked for `release` (and `--min-age`), or undefined when it can. */
export function familyReleaseProblem(family: AmiFamily, release: string, minAge?: string): Problem | undefined {
  const policy = /^latest~\d+$/.test(release) || minAge !== undefined;
  if (release === 'latest' && !policy) return undefined;
  if (!FAMILIES[family].pinnable && policy) {
    const asked = [release !== 'latest' ? `--release ${release}` : '', minAge !== undefined ? `--min-age ${minAge}` : ''].filter(Boolean).join(' ');
    return {
      message: `${family} has no release to choose by ${asked}: AWS publishes only the latest Windows AMI, and Karpenter accepts Windows aliases only as ${family}@latest`,
      hint: `ask for ${family} with --release latest alone, or promote a tested Windows AMI with --amis-file`,
    };
  }
  if (policy) return undefined;
  if (!FAMILIES[family].pinnable) {
    return {
      message: `${family} has no pinned releases: AWS publishes only the latest Windows AMI, and Karpenter accepts Windows aliases only as ${family}@latest`,
      hint: 'omit --release (or pass --release latest) to resolve the current Windows AMI; `render --pin id` pins it by ID',
    };
  }
  const form = releaseForm(family);
  const given = /^v\d{8}$/.test(release) ? 'dated' : 'semver';
  if (form !== undefined && form !== given) {
    return {
      message: `${family} releases look like ${RELEASE_FORMS[form]}; --release ${release} names a ${given === 'dated' ? 'dated AL2/AL2023' : 'Bottlerocket'} release`,
    };
  }
  return undefined;
}

export function amiQueries(selection: AmiSelection): AmiQuery[] {
  const { kubernetes, release, expand } = selection;
  const queries: AmiQuery[] = [];
  const impossible: string[] = [];

  for (const family of selection.families) {
    const versionProblem = familyVersionProblem(family, kubernetes.version);
    const problem =
      versionProblem !== undefined ? { message: versionProblem } : familyReleaseProblem(family, release, selection.minAge?.text);
    if (problem !== undefined) {
      if (!expand.families) throw new UsageError(problem.message, { hint: problem.hint });
      continue;
    }
    for (const arch of selection.arches) {
      for (const variant of selection.variants) {
        if (variantExists(family, arch, variant)) {
          queries.push({ family, kubernetesVersion: kubernetes.version, arch, variant, release });
        } else if (!expand.families && !expand.arches && !expand.variants) {
          impossible.push(`${family} ${arch} ${variant}`);
        }
      }
    }
  }

  const hint = existingCombinations(selection.families);
  if (impossible.length > 0) {
    throw new UsageError(`no EKS-optimized AMI exists for ${impossible.join(', ')}`, { hint });
  }
  // Whatever was named (not expanded from `all`) must have found something.
  const named: [string, readonly string[], (q: AmiQuery) => string][] = [
    ['--family', expand.families ? [] : selection.families, (q) => q.family],
    ['--arch', expand.arches ? [] : selection.arches, (q) => q.arch],
    ['--variant', expand.variants ? [] : selection.variants, (q) => q.variant],
  ];
  for (const [flag, values, valueOf] of named) {
    const unmatched = values.find((v) => !queries.some((q) => valueOf(q) === v));
    if (unmatched !== undefined) {
      const message = `${flag} ${unmatched} matches no EKS-optimized AMI for Kubernetes ${kubernetes.version} with the other flags given`;
      throw new UsageError(message, { hint });
    }
  }
  if (queries.length === 0) {
    throw new UsageError(`no EKS-optimized AMI matches the flags given for Kubernetes ${kubernetes.version}`, { hint });
  }
  return queries;
}

function existingCombinations(families: readonly AmiFamily[]): string {
  const lines = families.map((f) => {
    const { amd64, arm64 } = FAMILIES[f].variants;
    return `${f}: amd64 ${amd64.join('/')}${arm64.length > 0 ? `, arm64 ${arm64.join('/')}` : ', no arm64'}`;
  });
  return `these exist: ${lines.join('; ')}`;
}
