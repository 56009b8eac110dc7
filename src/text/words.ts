// Text the reports, the diagnosis and the sandbox's kubectl tables share: how a term, an instant and a duration read.
import type { NodeClassView } from '../karpenter/views.js';

/** One amiSelectorTerm as `id=ami-…` or `name=…,owner=amazon` or `tags={k: v}`. */
export function amiSelectorTermText(t: NodeClassView['amiSelectorTerms'][number]): string {
  const parts = Object.entries(t).map(([k, v]) =>
    typeof v === 'string'
      ? `${k}=${v}`
      : `${k}={${Object.entries(v as Record<string, string>)
          .map(([a, b]) => `${a}: ${b}`)
          .join(', ')}}`,
  );
  return parts.join(',');
}

/** `1 node`, `3 nodes` (`words` for an irregular plural). */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/** RFC 3339 in UTC, to the second: `2025-08-20T17:00:00Z`. */
export function utcTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * An estimate or a time left, in one form at every size: `45s`, `1m32s`, `12m`, `1h5m`, `2d4h`. HumanDuration (below,
 * kubectl's AGE) switches from `92s` to `3m15s` at two minutes and drops the seconds at ten, so a ticking ETA read as
 * two formats; seconds are kept while they are a sizeable part (under ten minutes), minutes while under two days.
 */
export function etaDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  return humanDuration(ms);
}

/** apimachinery util/duration `HumanDuration`: `45s`, `5m30s`, `3h`, `2d4h`, `400d`, `3y12d`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${days / 365}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}
