// The sandbox's AMI release timeline: when each Kubernetes minor reached EKS and on which days AMIs were built for it.
// Everything is derived from a seed and an "as of" instant, so a catalog replays identically.
import { createHash } from 'node:crypto';

const DAY_MS = 86_400_000;

/**
 * EKS standard-support start per minor (AWS docs `kubernetes-versions.adoc`; 1.36 is an estimate). AMIs are
 * published from this day until extended support ends 26 months later (14 standard + 12 extended).
 */
export const EKS_MINOR_RELEASE_DATES: Readonly<Record<string, string>> = {
  '1.28': '2023-09-26',
  '1.29': '2024-01-23',
  '1.30': '2024-05-23',
  '1.31': '2024-09-26',
  '1.32': '2025-01-23',
  '1.33': '2025-05-29',
  '1.34': '2025-10-02',
  '1.35': '2026-01-27',
  '1.36': '2026-06-11',
};
export const KUBERNETES_MINORS = Object.keys(EKS_MINOR_RELEASE_DATES);
const SUPPORT_MONTHS = 26;

// Amazon Linux AMIs are rebuilt roughly every two weeks, for all supported minors on the same day
// (github.com/awslabs/amazon-eks-ami/releases).
const SCHEDULE_ANCHOR = Date.parse('2023-09-01T00:00:00Z');
const SCHEDULE_DAYS = 14;

/** One AMI build day, as each family names it. */
export interface Build {
  /** When the images were registered. */
  created: Date;
  /** AL2/AL2023 release tag, e.g. `v20240917`. */
  amazonLinuxTag: string;
  /** Bottlerocket version, e.g. `1.20.4`. */
  bottlerocketVersion: string;
  /** Kubernetes patch the build ships, e.g. 4 in release_version `1.30.4-20240917`. */
  kubernetesPatch: number;
  /** Windows AMI names end in the build date, e.g. `2024.09.17`. */
  windowsDate: string;
}

/** Hex digest of the seed and a label: every "random" choice in the catalog comes from here. */
export function seededHex(seed: number, label: string): string {
  return createHash('sha256').update(`${seed}|${label}`).digest('hex');
}

function addMonths(date: Date, months: number): Date {
  const d = new Date(date);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
}

function build(seed: number, index: number, minorStart: Date): Build {
  const jitterDays = parseInt(seededHex(seed, `build-day-${index}`).slice(0, 2), 16) % 3;
  const hour = 1 + (parseInt(seededHex(seed, `build-hour-${index}`).slice(0, 2), 16) % 20);
  const created = new Date(SCHEDULE_ANCHOR + (index * SCHEDULE_DAYS + jitterDays) * DAY_MS + hour * 3_600_000);
  const ymd = created.toISOString().slice(0, 10);
  return {
    created,
    amazonLinuxTag: `v${ymd.replaceAll('-', '')}`,
    // Bottlerocket ships a minor about every two months: 1.15.0 in September 2023, 1.16.0 four builds later.
    bottlerocketVersion: `1.${15 + Math.floor(index / 4)}.${index % 4}`,
    kubernetesPatch: 1 + Math.floor((created.getTime() - minorStart.getTime()) / (45 * DAY_MS)),
    windowsDate: ymd.replaceAll('-', '.'),
  };
}

/**
 * The builds of one minor, oldest first: the first build after the minor reached EKS (old enough to be deprecated
 * for the earlier minors) and the newest `count - 1` builds before `asOf` or the end of extended support.
 */
export function minorBuilds(seed: number, kubernetesVersion: string, asOf: Date, count: number): Build[] {
  const start = EKS_MINOR_RELEASE_DATES[kubernetesVersion];
  if (start === undefined) return [];
  const minorStart = new Date(`${start}T00:00:00Z`);
  const end = Math.min(asOf.getTime(), addMonths(minorStart, SUPPORT_MONTHS).getTime());
  const all: Build[] = [];
  for (let index = 0; ; index++) {
    const b = build(seed, index, minorStart);
    if (b.created.getTime() > end) break;
    if (b.created >= minorStart) all.push(b);
  }
  if (all.length <= count) return all;
  return [all[0]!, ...all.slice(all.length - (count - 1))];
}

/** The first build day after `asOf`: images for it may already exist in EC2 (state `pending`) but not in SSM. */
export function nextBuild(seed: number, kubernetesVersion: string, asOf: Date): Build {
  const minorStart = new Date(`${EKS_MINOR_RELEASE_DATES[kubernetesVersion] ?? '2023-09-01'}T00:00:00Z`);
  for (let index = 0; ; index++) {
    const b = build(seed, index, minorStart);
    if (b.created > asOf) return b;
  }
}
