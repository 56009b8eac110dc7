// `upgrade --templates` diff output for one scenario, as text and as JSON: the live class `default` has another role,
// a `team` tag and an old id pin; the template changes the role and the tag, pins the new AMIs, adds a description
// and drops userData that an earlier karp-drift apply set; the NodePool is new.
import { describe, expect, it } from 'vitest';
import type { LiveObject } from '../../src/karpenter/views.js';
import { manifestDiff, type RenderedObject } from '../../src/manifests/diff.js';
import { templateDriftChecks } from '../../src/plan/template-drift.js';
import { manifestDiffJson, manifestDiffText } from '../../src/report/diff.js';

const renderedClass: RenderedObject = {
  metadata: {
    name: 'default',
    annotations: { 'kubernetes.io/description': 'pinned by karp-drift' },
  },
  spec: {
    role: 'KarpenterNodeRole-prod',
    tags: { team: 'ml' },
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ id: 'ami-0new0000000000001' }, { id: 'ami-0new0000000000002' }],
  },
};
const liveClass: LiveObject = {
  resourceVersion: '1',
  labels: {},
  annotations: {},
  spec: {
    role: 'KarpenterNodeRole-old',
    tags: { team: 'web' },
    userData: 'echo hello',
    amiFamily: 'AL2023',
    amiSelectorTerms: [{ id: 'ami-0old0000000000001' }, { id: 'ami-0new0000000000002' }],
  },
  managedFields: [
    {
      manager: 'karp-drift',
      operation: 'Apply',
      fieldsV1: { 'f:spec': { 'f:userData': {}, 'f:role': {} } },
    },
  ],
};
const renderedPool: RenderedObject = {
  metadata: { name: 'default' },
  spec: { template: { spec: { requirements: [] } } },
};

function scenario() {
  const diff = manifestDiff({ nodeClass: renderedClass, nodePool: renderedPool }, { nodeClass: liveClass }, 'karp-drift');
  const checks = templateDriftChecks({
    diff,
    nodeClaims: [
      {
        name: 'default-a',
        nodeClass: 'default',
        nodePool: 'default',
        imageId: 'ami-0new0000000000002',
        labels: {},
        deleting: false,
      },
    ],
    targetImageIds: ['ami-0new0000000000001', 'ami-0new0000000000002'],
    requirements: [],
    accepted: false,
  });
  return { diff, checks };
}

describe('manifestDiffText', () => {
  it('draws the tree, then the checks', () => {
    const { diff, checks } = scenario();
    expect(manifestDiffText(diff, checks, { color: false })).toMatchInlineSnapshot(`
      "Changes to the live objects:
      [~] EC2NodeClass default
       ├─ [+] metadata.annotations["kubernetes.io/description"]: "pinned by karp-drift" (no drift)
       ├─ [~] spec.role (hashed: NodeClassDrift)
       │   ├─ [-] KarpenterNodeRole-old
       │   └─ [+] KarpenterNodeRole-prod
       ├─ [~] spec.tags.team (hashed: NodeClassDrift)
       │   ├─ [-] web
       │   └─ [+] ml
       ├─ [~] spec.amiSelectorTerms (AMI selection)
       │   ├─ [-] {id: ami-0old0000000000001}
       │   └─ [+] {id: ami-0new0000000000001}
       └─ [-] spec.userData: "echo hello" (hashed: NodeClassDrift)
      [+] NodePool default (created)

      Errors (1):
        TEMPLATE-DRIFT: ec2nodeclass/default: the templates change spec.role, spec.tags.team and spec.userData, which Karpenter hashes: every NodeClaim of the class would drift (NodeClassDrift): 1 node, 1 of them already on the target AMI
            · spec.role: KarpenterNodeRole-old → KarpenterNodeRole-prod
            · spec.tags.team: web → ml
            · spec.userData: "echo hello" → (removed)
            next: make the templates match the live EC2NodeClass (kubectl get ec2nodeclass/default -o yaml), or pass --accept-template-drift to apply them and let Karpenter replace those nodes

      Info (1):
        TEMPLATE-CHANGES: ec2nodeclass/default: the templates also change metadata.annotations["kubernetes.io/description"], which drift no node
            · metadata.annotations["kubernetes.io/description"]: (unset) → "pinned by karp-drift"
      "
    `);
  });

  it('says when an object is unchanged, and colours the marks on a terminal', () => {
    const diff = manifestDiff(
      { nodeClass: renderedClass, nodePool: renderedPool },
      {
        nodeClass: {
          ...liveClass,
          spec: renderedClass.spec as Record<string, unknown>,
          annotations: { 'kubernetes.io/description': 'pinned by karp-drift' },
          managedFields: [],
        },
      },
      'karp-drift',
    );
    expect(manifestDiffText(diff, [], { color: false })).toContain('    EC2NodeClass default: no changes\n');
    expect(manifestDiffText(diff, [], { color: true })).toContain('\x1b[32m[+]\x1b[0m NodePool default (created)');
  });
});

describe('manifestDiffJson', () => {
  it('carries every change with its class and drift reason', () => {
    expect(manifestDiffJson(scenario().diff)).toMatchInlineSnapshot(`
      {
        "nodeClass": {
          "changes": [
            {
              "after": "pinned by karp-drift",
              "class": "behavioural",
              "op": "add",
              "path": "metadata.annotations["kubernetes.io/description"]",
              "reason": null,
            },
            {
              "after": "KarpenterNodeRole-prod",
              "before": "KarpenterNodeRole-old",
              "class": "hashed",
              "op": "change",
              "path": "spec.role",
              "reason": "NodeClassDrift",
            },
            {
              "after": "ml",
              "before": "web",
              "class": "hashed",
              "op": "change",
              "path": "spec.tags.team",
              "reason": "NodeClassDrift",
            },
            {
              "after": [
                {
                  "id": "ami-0new0000000000001",
                },
                {
                  "id": "ami-0new0000000000002",
                },
              ],
              "before": [
                {
                  "id": "ami-0old0000000000001",
                },
                {
                  "id": "ami-0new0000000000002",
                },
              ],
              "class": "ami-selection",
              "op": "change",
              "path": "spec.amiSelectorTerms",
              "reason": null,
            },
            {
              "before": "echo hello",
              "class": "hashed",
              "op": "remove",
              "path": "spec.userData",
              "reason": "NodeClassDrift",
            },
          ],
          "created": false,
          "kind": "EC2NodeClass",
          "name": "default",
        },
        "nodePool": {
          "changes": [],
          "created": true,
          "kind": "NodePool",
          "name": "default",
        },
      }
    `);
  });
});
