// The words of `upgrade --templates` around its diff: what the apply does (and each object it creates, said plainly,
// since a new NodePool is capacity, not an upgrade), and the last line, which names the NodePools that actually rolled.
import type { TemplateClaim } from '../karpenter/views.js';
import type { RenderedManifests } from '../manifests/render.js';
import type { NodePoolProgress } from '../rollout/track.js';
import { humanDuration, plural } from '../text/words.js';

const list = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;

/** The plan's last lines: the apply, then one `+ <object> (created)` line for each object it creates. */
export function templatePlanText(
  name: string,
  manifests: RenderedManifests,
  creates: readonly string[],
  claims: readonly TemplateClaim[],
): string {
  const applied = [`ec2nodeclass/${name}`, `nodepool/${name}`].filter((o) => !creates.includes(o));
  const how = '(server-side apply, field manager karp-drift)';
  const head =
    creates.length === 0
      ? `Plan: apply ${list(applied)} whole ${how}.`
      : `Plan: ${applied.length > 0 ? `apply ${list(applied)} whole and ` : ''}create ${list(creates)} ${how}:`;
  const lines = [head];
  for (const object of creates) {
    if (object.startsWith('nodepool/')) {
      const beside = [...new Set(claims.filter((c) => c.nodeClass === name && c.nodePool && c.nodePool !== name).map((c) => `nodepool/${c.nodePool!}`))].sort();
      const limits = manifests.nodePool.spec.limits === undefined ? ', and it sets no limits (spec.limits)' : '';
      lines.push(
        `  + ${object} (created): a new NodePool${beside.length > 0 ? ` beside ${list(beside)}` : ''}; Karpenter may launch nodes from it for any pending pod it fits${limits}. karp-drift rollback deletes it again.`,
      );
    } else {
      lines.push(`  + ${object} (created): a new EC2NodeClass. karp-drift rollback deletes it again once no NodePool uses it.`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The last line of a followed `upgrade --templates`: the NodePools whose nodes were replaced, not the one rendered. */
export function rolledLine(
  pools: readonly Pick<NodePoolProgress, 'name' | 'total' | 'replaced'>[],
  { name, to, creates, ms }: { name: string; to: string; creates: readonly string[]; ms: number },
): string {
  const rolled = pools.filter((p) => p.replaced > 0);
  const empty = pools.filter((p) => p.total === 0 && p.replaced === 0).map((p) => `nodepool/${p.name}${creates.includes(`nodepool/${p.name}`) ? ' (created)' : ''}`);
  const head =
    rolled.length > 0
      ? `Rollout complete in ${humanDuration(ms)}: ${list(rolled.map((p) => `nodepool/${p.name}`))} run${rolled.length === 1 ? 's' : ''} Kubernetes ${to} AMIs (${rolled.map((p) => `${p.name}: ${plural(p.replaced, 'node')} replaced`).join('; ')}).`
      : `Rollout complete: every node of ec2nodeclass/${name} already ran Kubernetes ${to} AMIs; none was replaced.`;
  return `${head}${empty.length > 0 ? ` ${list(empty)} ${empty.length === 1 ? 'has' : 'have'} no nodes.` : ''}`;
}
