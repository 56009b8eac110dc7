// Pure: the release policy of `--release latest~N` and `--min-age` (issue 26). Users ask not to take an AMI on the day
// it is published (aws/karpenter-provider-aws#5551) or to stay one release behind (#6779): both choose one concrete
// release per family from what SSM lists, and pin exactly that, so a later apply or a promotion never moves with SSM.
// The AWS edge (release-listing in resolve.ts) lists and dates the releases; the choice is made here.
import { FAMILIES, type AmiFamily } from './families.js';
import { ssmParameterPrefix, type AmiQuery } from './parameters.js';
import { humanDuration, utcTime } from '../text/words.js';

export interface ReleasePolicy {
  /** latest~N: this many releases behind the newest one that qualifies (0: that newest). */
  behind: number;
  /** --min-age: only releases at least this old qualify; `text` as written (7d, 36h). */
  minAge?: { text: string; ms: number };
}

/** What a policy was asked as: `latest~1`, `latest --min-age 7d`, `latest~1 --min-age 7d`. */
export function releasePolicyText(p: ReleasePolicy): string {
  const release = p.behind === 0 ? 'latest' : `latest~${p.behind}`;
  return p.minAge === undefined ? release : `${release} --min-age ${p.minAge.text}`;
}

/** `--release` and `--min-age` as parsed: a policy, or undefined for `latest` and for a release named outright. */
export function releasePolicy(release: string, minAge: ReleasePolicy['minAge'] | undefined): ReleasePolicy | undefined {
  const behind = /^latest~(\d+)$/.exec(release);
  if (behind) return { behind: Number(behind[1]), ...(minAge !== undefined ? { minAge } : {}) };
  if (release === 'latest' && minAge !== undefined) return { behind: 0, minAge };
  return undefined;
}

/** One release of a family as SSM lists it: published for every series asked (arch × variant), with its images. */
export interface ListedRelease {
  release: string;
  imageIds: string[];
  /** The later of the date in its name and its images' EC2 CreationDate; undefined when neither is known. */
  published?: Date;
}

/** The release a policy chose for one family, and what it was chosen against: what plan, amis and the summary record. */
export interface ReleaseChoice {
  family: AmiFamily;
  kubernetesVersion: string;
  release: string;
  published: string | null;
  /** The newest release SSM lists for the family (for every arch and variant asked). */
  newest: { release: string; published: string | null };
  /** How many releases SSM lists for it. */
  listed: number;
}

export interface RecordedPolicy {
  /** As asked: latest~1, or latest with minAge. */
  release: string;
  minAge: string | null;
  /** One per family the policy chose for. */
  families: ReleaseChoice[];
}

// A placeholder release of the family's form, only to find the series' folder (its parent) from parameters.ts.
const PLACEHOLDER: Partial<Record<AmiFamily, string>> = { al2: 'v00000000', al2023: 'v00000000', bottlerocket: '0.0.0' };

/** The SSM folder whose children are one release each (DOMAIN.md §3.3): what GetParametersByPath lists. */
export function releaseFolder(q: AmiQuery): string | undefined {
  const placeholder = PLACEHOLDER[q.family];
  if (placeholder === undefined || !FAMILIES[q.family].pinnable) return undefined;
  const prefix = ssmParameterPrefix({ ...q, release: placeholder });
  return prefix.slice(0, prefix.lastIndexOf('/'));
}

/** The release a child folder of the series names, only if parameters.ts builds exactly that folder back from it. */
function folderRelease(q: AmiQuery, folder: string): string | undefined {
  const leaf = folder.slice(folder.lastIndexOf('/') + 1);
  const m = q.family === 'bottlerocket' ? /^(\d+\.\d+\.\d+)$/.exec(leaf) : /-(v\d{8})$/.exec(leaf);
  if (!m) return undefined; // recommended, latest, or another series sharing the folder
  return ssmParameterPrefix({ ...q, release: m[1]! }) === folder ? m[1] : undefined;
}

/**
 * The releases SSM lists for one family, newest first, from the `image_id` parameters GetParametersByPath returned
 * under each query's release folder. A release counts only when it is published for every query (arch × variant):
 * a pin must cover every node the classes run.
 */
export function listedReleases(queries: readonly AmiQuery[], parameters: ReadonlyMap<string, string>): ListedRelease[] {
  const perQuery = queries.map((q) => {
    const releases = new Map<string, string>();
    const folder = releaseFolder(q);
    if (folder === undefined) return releases;
    for (const [name, value] of parameters) {
      if (!name.startsWith(`${folder}/`) || !name.endsWith('/image_id')) continue;
      const release = folderRelease(q, name.slice(0, -'/image_id'.length));
      if (release !== undefined) releases.set(release, value);
    }
    return releases;
  });
  const [first, ...rest] = perQuery;
  if (first === undefined) return [];
  const common = [...first.keys()].filter((r) => rest.every((m) => m.has(r)));
  const family = queries[0]!.family;
  return common
    .sort((a, b) => compareReleases(family, b, a))
    .map((release) => ({ release, imageIds: [...new Set(perQuery.map((m) => m.get(release)!))] }));
}

/** Release order as the names order them: the date of vYYYYMMDD (AL2, AL2023), semver (Bottlerocket). */
export function compareReleases(family: AmiFamily, a: string, b: string): number {
  if (family !== 'bottlerocket') return a < b ? -1 : a > b ? 1 : 0;
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

/** The day a dated release names (v20261023 → 2026-10-23T00:00Z); Bottlerocket versions carry no date. */
export function nameDate(release: string): Date | undefined {
  const m = /^v(\d{4})(\d{2})(\d{2})$/.exec(release);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
}

/**
 * When a release was published in this region: the later of the date its name carries and the newest EC2
 * CreationDate of its images (a release registered here days after its build is only that old here).
 */
export function publishedAt(release: string, creationDates: ReadonlyArray<string | undefined>): Date | undefined {
  const times = [nameDate(release)?.getTime(), ...creationDates.map((d) => (d === undefined ? NaN : Date.parse(d)))];
  const known = times.filter((t): t is number => t !== undefined && !Number.isNaN(t));
  return known.length > 0 ? new Date(Math.max(...known)) : undefined;
}

export interface PolicyProblem {
  family: AmiFamily;
  message: string;
  hint: string;
}

const when = (d: Date | undefined): string => (d === undefined ? 'at an unknown date' : utcTime(d));
const ageOf = (d: Date | undefined, now: Date): string =>
  d === undefined ? 'of unknown age' : `${humanDuration(now.getTime() - d.getTime())} old`;

/**
 * Chooses one family's release: `--min-age` first (only releases at least that old qualify), then `latest~N` counts
 * back among those, so `latest~1 --min-age 7d` is one release behind the newest that is a week old. `releases` is
 * newest first, as listedReleases returns it.
 */
export function chooseRelease(
  family: AmiFamily,
  kubernetesVersion: string,
  releases: readonly ListedRelease[],
  policy: ReleasePolicy,
  now: Date,
): { choice: ReleaseChoice } | { problem: PolicyProblem } {
  const asked = releasePolicyText(policy);
  const newest = releases[0];
  if (newest === undefined) {
    return {
      problem: {
        family,
        message: `--release ${asked}: SSM lists no ${family} release for Kubernetes ${kubernetesVersion} published for every architecture and variant needed`,
        hint: `check what is published with: karp-drift amis --to ${kubernetesVersion} --family ${family} --arch all --variant all`,
      },
    };
  }
  const minAge = policy.minAge;
  const qualifying =
    minAge === undefined
      ? releases
      : releases.filter((r) => r.published !== undefined && now.getTime() - r.published.getTime() >= minAge.ms);
  const newestText = `the newest, ${newest.release}, was published ${when(newest.published)} (${ageOf(newest.published, now)})`;
  if (minAge !== undefined && qualifying.length === 0) {
    const dated = releases.filter((r) => r.published !== undefined);
    const oldest = dated.reduce<ListedRelease | undefined>((o, r) => (o === undefined || r.published! < o.published! ? r : o), undefined);
    const first = oldest === undefined ? '' : `; ${oldest.release} is the first to qualify, at ${utcTime(new Date(oldest.published!.getTime() + minAge.ms))}`;
    return {
      problem: {
        family,
        message: `--min-age ${minAge.text}: no ${family} release for Kubernetes ${kubernetesVersion} is ${minAge.text} old yet: ${newestText}, and ${plural(releases.length)} listed${first}`,
        hint:
          oldest === undefined
            ? `EC2 dates none of them: name a release outright, e.g. --release ${newest.release}`
            : `wait, or pass a shorter --min-age (${oldest.release} is ${ageOf(oldest.published, now)}), or name a release outright: --release ${oldest.release}`,
      },
    };
  }
  const chosen = qualifying[policy.behind];
  if (chosen === undefined) {
    const among = minAge === undefined ? '' : ` at least ${minAge.text} old`;
    const oldest = qualifying.at(-1)!;
    return {
      problem: {
        family,
        message: `--release ${asked}: SSM lists only ${plural(qualifying.length)} of ${family} for Kubernetes ${kubernetesVersion}${among} (newest ${qualifying[0]!.release}, oldest ${oldest.release}); ${newestText}`,
        hint: `pass --release latest~${qualifying.length - 1} at most, or name a release outright: --release ${oldest.release}`,
      },
    };
  }
  const iso = (d: Date | undefined) => (d === undefined ? null : utcTime(d));
  return {
    choice: {
      family,
      kubernetesVersion,
      release: chosen.release,
      published: iso(chosen.published),
      newest: { release: newest.release, published: iso(newest.published) },
      listed: releases.length,
    },
  };
}

const plural = (n: number) => `${n} release${n === 1 ? '' : 's'}`;

/** One line per family for a person: `al2023 v20261009 (published 2026-10-09T06:00:00Z; newest v20261023)`. */
export function releaseChoiceText(c: ReleaseChoice): string {
  const published = c.published == null ? 'publication date unknown' : `published ${c.published}`;
  const newest = c.newest.release === c.release ? 'the newest' : `newest ${c.newest.release}`;
  return `${c.family} ${c.release} (${published}; ${newest})`;
}
