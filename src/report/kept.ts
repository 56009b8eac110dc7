// What a re-run of a staged rollout kept (plan/kept-releases.ts), in the words the log line, the plan's text and the
// summary share: which release each family stays on, for which classes, and what the policy would pin instead.
import type { PlanSource } from '../plan/promotion.js';

/** One line per kept family; none when nothing was kept. */
export function keptReleaseLines(source: PlanSource | undefined, to: string): string[] {
  if (source?.kind !== 'ssm' || source.kept === undefined) return [];
  const policy = source.policy;
  const asked = policy === undefined ? '--release latest' : `--release ${policy.release}${policy.minAge == null ? '' : ` --min-age ${policy.minAge}`}`;
  return source.kept.map((k) => {
    const classes = k.nodeClasses.map((c) => `ec2nodeclass/${c}`).join(', ');
    const kept = `the staged rollout to ${to} under way keeps its AMIs: ${k.family} ${k.release} (${classes})`;
    if (k.newer === k.release) return `${kept}, which ${asked} still chooses`;
    if (k.newer == null) return `${kept}; what ${asked} would choose now could not be told`;
    return `${kept}; ${asked} now chooses ${k.newer}, which the next upgrade after this rollout takes (to move this rollout to it now, name it: --release ${k.newer})`;
  });
}
