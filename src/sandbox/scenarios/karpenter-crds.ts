// The Karpenter CRDs one release served, for the sandbox's API server. 1.x releases get the vendored v1.14.1 CRDs;
// v0.32–v0.37 get the vendored v0.37.8 ones (vendor/karpenter/README.md) less what the release's own CRDs lack,
// compared tag by tag (aws/karpenter-provider-aws `pkg/apis/crds/` at v0.32.0 … v0.37.8; versions.ts):
// - the v1 versions of all three CRDs and their conversion webhook, before v0.33.6, v0.34.7, v0.35.6, v0.36.3, v0.37.1;
// - NodePool v1beta1 `spec.disruption.budgets`, before v0.34.0: what remains of `spec.disruption` is then exactly
//   v0.32.0–v0.33.12's (`consolidateAfter`, `consolidationPolicy`, `expireAfter` and their two CEL rules).
// No v1beta1 NodePool schema ever had budget `reasons`, v0.37.x's included, so v0.34–v0.37 budgets are v0.37.8's as
// they are (v0.36.0–v0.37.8 alike; v0.34–v0.35 only differ in the `duration` pattern and one CEL rule's wording).
// Older releases differ elsewhere too, and those differences are not served: v0.32–v0.34 EC2NodeClasses have no
// `AL2023` family, EC2NodeClass `status.conditions` arrived in v0.37, NodePool requirement `minValues` in v0.34.
import { loadKarpenterCrds, type CustomResourceDefinition } from '../kube-api/crds.js';
import type { StorageConversions } from '../kube-api/registry-store.js';
import { budgetSupport, servesV1, type KarpenterApi, type KarpenterVersion } from './versions.js';

type Release = KarpenterVersion & { api: KarpenterApi };

export function karpenterCrds(release: Release): CustomResourceDefinition[] {
  const crds = loadKarpenterCrds(release.api);
  if (release.api === 'v1') return crds;
  for (const crd of crds) {
    if (!servesV1(release)) {
      crd.spec.versions = crd.spec.versions.filter((v) => v.name !== 'v1');
      delete crd.spec.conversion;
    }
    if (crd.spec.names.kind === 'NodePool' && budgetSupport(release) === 'none') {
      const v1beta1 = crd.spec.versions.find((v) => v.name === 'v1beta1');
      delete v1beta1?.schema?.openAPIV3Schema.properties?.spec?.properties?.disruption?.properties?.budgets;
    }
  }
  return crds;
}

/**
 * Of the conversion webhook of a v1beta1 release that serves v1 (above), what it does to NodePool budgets written
 * through v1 (kubernetes-sigs/karpenter `pkg/apis/v1/nodepool_conversion.go` `Disruption.convertTo`, v0.33.6–v0.37.7):
 * v0.34.7+ keep `nodes`, `schedule` and `duration` of each budget and drop `reasons`; v0.33.6+ drop the budgets, which
 * their v1beta1 has not. The rest of the conversion is not emulated (sandbox README, Not emulated).
 */
export function karpenterConversions(release: Release): StorageConversions {
  if (release.api !== 'v1beta1' || !servesV1(release)) return {};
  const none = budgetSupport(release) === 'none';
  return {
    'nodepools.karpenter.sh': (object, from, to) => {
      const disruption = (object.spec as { disruption?: { budgets?: Array<Record<string, unknown>> } } | undefined)
        ?.disruption;
      if (from !== 'v1' || to !== 'v1beta1' || disruption?.budgets === undefined) return object;
      const { budgets, ...rest } = disruption;
      const kept = none ? {} : { budgets: budgets.map(({ reasons: _reasons, ...budget }) => budget) };
      return { ...object, spec: { ...(object.spec as object), disruption: { ...rest, ...kept } } };
    },
  };
}
