// The words around an `upgrade --templates` diff: each object created said plainly, and the last line naming the
// NodePools whose nodes were replaced (issue 25: it named the rendered NodePool, which had none).
import { describe, expect, it } from 'vitest';
import { rolledLine, templatePlanText } from '../../src/report/templates.js';
import type { RenderedManifests } from '../../src/manifests/render.js';

const manifests = (limits?: unknown) => ({ nodeClass: { spec: {} }, nodePool: { spec: { ...(limits ? { limits } : {}) } } }) as unknown as RenderedManifests;
const claim = (nodePool: string) => ({ name: `${nodePool}-1`, nodePool, nodeClass: 'default', labels: {}, deleting: false });

describe('templatePlanText', () => {
  it('nothing created', () => {
    expect(templatePlanText('default', manifests(), [], [])).toBe(
      'Plan: apply ec2nodeclass/default and nodepool/default whole (server-side apply, field manager karp-drift).\n',
    );
  });

  it('a NodePool created beside the class\'s others, with no limits', () => {
    expect(templatePlanText('default', manifests(), ['nodepool/default'], [claim('general'), claim('arm'), claim('general')])).toBe(
      'Plan: apply ec2nodeclass/default whole and create nodepool/default (server-side apply, field manager karp-drift):\n' +
        '  + nodepool/default (created): a new NodePool beside nodepool/arm and nodepool/general; Karpenter may launch nodes from it for any pending pod it fits, and it sets no limits (spec.limits). karp-drift rollback deletes it again.\n',
    );
  });

  it('both created, with limits', () => {
    expect(templatePlanText('fresh', manifests({ cpu: 100 }), ['ec2nodeclass/fresh', 'nodepool/fresh'], [])).toBe(
      'Plan: create ec2nodeclass/fresh and nodepool/fresh (server-side apply, field manager karp-drift):\n' +
        '  + ec2nodeclass/fresh (created): a new EC2NodeClass. karp-drift rollback deletes it again once no NodePool uses it.\n' +
        '  + nodepool/fresh (created): a new NodePool; Karpenter may launch nodes from it for any pending pod it fits. karp-drift rollback deletes it again.\n',
    );
  });
});

describe('rolledLine', () => {
  const end = { name: 'default', to: '1.30', creates: ['nodepool/default'], ms: 95_000 };
  it.each<[string, Array<{ name: string; total: number; replaced: number }>, string]>([
    [
      'the NodePools replaced, and the created one without nodes',
      [{ name: 'default', total: 0, replaced: 0 }, { name: 'arm', total: 3, replaced: 3 }, { name: 'general', total: 6, replaced: 6 }],
      'Rollout complete in 95s: nodepool/arm and nodepool/general run Kubernetes 1.30 AMIs (arm: 3 nodes replaced; general: 6 nodes replaced). nodepool/default (created) has no nodes.',
    ],
    ['one NodePool', [{ name: 'general', total: 1, replaced: 1 }], 'Rollout complete in 95s: nodepool/general runs Kubernetes 1.30 AMIs (general: 1 node replaced).'],
    ['nothing replaced', [{ name: 'general', total: 6, replaced: 0 }], 'Rollout complete: every node of ec2nodeclass/default already ran Kubernetes 1.30 AMIs; none was replaced.'],
  ])('%s', (_, pools, line) => {
    expect(rolledLine(pools, end)).toBe(line);
  });
});
