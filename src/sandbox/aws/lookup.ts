// Catalog queries shared by the EC2/SSM handlers and the simulated Karpenter (part 2), which resolves
// amiSelectorTerms against the same catalog the CLI reads over HTTP.
import type { AmiFamily, Arch, Variant } from '../../ami/families.js';
import type { AmiCatalog, CatalogImage, CatalogRelease } from './types.js';

/**
 * EC2 filter-value matching: `*` matches any run of characters, `?` exactly one, and a backslash escapes either
 * (EC2 API Reference, "Filtering": "You can use wildcards with the filter values"). Case-sensitive, whole value.
 */
export function wildcardMatcher(pattern: string): (value: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else source += escapeRegExp(c);
  }
  const re = new RegExp(`^${source}$`, 's');
  return (value) => re.test(value);
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Accepts a parameter name or its ARN (`arn:aws:ssm:<region>::parameter/aws/service/...`), as GetParameter does. */
export function parameterName(nameOrArn: string): string {
  const m = /^arn:aws[\w-]*:ssm:[^:]*:[^:]*:parameter(\/.*)$/.exec(nameOrArn);
  return m ? m[1]! : nameOrArn;
}

export function parameterValue(catalog: AmiCatalog, nameOrArn: string): string | undefined {
  return catalog.parameters.get(parameterName(nameOrArn))?.value;
}

export function imageById(catalog: AmiCatalog, imageId: string): CatalogImage | undefined {
  return catalog.images.get(imageId);
}

export function imagesByName(catalog: AmiCatalog, pattern: string): CatalogImage[] {
  const matches = wildcardMatcher(pattern);
  return [...catalog.images.values()].filter((image) => matches(image.name));
}

/** Karpenter's `tags` term: every key must be present, and a value of `*` only asks for the key. */
export function imagesByTags(catalog: AmiCatalog, tags: Record<string, string>): CatalogImage[] {
  const wanted = Object.entries(tags).map(([key, value]) => [key, wildcardMatcher(value)] as const);
  return [...catalog.images.values()].filter((image) =>
    wanted.every(([key, matches]) => image.tags[key] !== undefined && matches(image.tags[key])),
  );
}

export interface ReleaseSeries {
  family: AmiFamily;
  kubernetesVersion: string;
  arch: Arch;
  variant: Variant;
}

/** All releases of one series, oldest first. */
export function seriesReleases(catalog: AmiCatalog, s: ReleaseSeries): CatalogRelease[] {
  return catalog.releases
    .filter(
      (r) =>
        r.family === s.family &&
        r.kubernetesVersion === s.kubernetesVersion &&
        r.arch === s.arch &&
        r.variant === s.variant,
    )
    .sort((a, b) => a.created.getTime() - b.created.getTime());
}

/** The release `@latest` resolves to: the one the `recommended`/`latest` parameter points at. */
export function newestRelease(catalog: AmiCatalog, s: ReleaseSeries): CatalogRelease | undefined {
  return seriesReleases(catalog, s).at(-1);
}
