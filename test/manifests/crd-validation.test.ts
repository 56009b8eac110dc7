// The rendered objects against the real, vendored Karpenter v1 CRDs (vendor/karpenter/crds/v1/): OpenAPI schema
// and x-kubernetes-validations CEL rules, as the API server would check them on `kubectl apply`.
import { describe, expect, it } from 'vitest';
import type { AmiFamily } from '../../src/ami/families.js';
import type { RenderPinMode as PinMode } from '../../src/manifests/render.js';
import { renderManifests, type PinnedAmi } from '../../src/manifests/render.js';
import { readTemplates } from '../../src/manifests/templates.js';
import { crdValidator } from '../../src/sandbox/kube-api/crd-validation.js';
import { loadKarpenterCrds } from '../../src/sandbox/kube-api/crds.js';

const crds = loadKarpenterCrds('v1');
function validatorFor(kind: string) {
  const crd = crds.find((c) => c.spec.names.kind === kind);
  if (!crd) throw new Error(`no ${kind} CRD among the vendored v1 CRDs`);
  return crdValidator(crd);
}
const ec2NodeClassCrd = validatorFor('EC2NodeClass');
const nodePoolCrd = validatorFor('NodePool');

const bundled = await readTemplates();
const user = await readTemplates(new URL('../fixtures/templates/hashed-fields/', import.meta.url).pathname);

const RELEASE: Record<AmiFamily, string> = {
  al2: 'v20241109',
  al2023: 'v20241109',
  bottlerocket: '1.26.1',
  windows2019: '2024.11.13',
  windows2022: '2024.11.13',
  windows2025: '2024.11.13',
};
const amis = (family: AmiFamily): PinnedAmi[] => [
  { arch: 'amd64', id: 'ami-0a1b2c3d4e5f60001', release: RELEASE[family] },
  { arch: 'arm64', id: 'ami-0a1b2c3d4e5f60002', release: RELEASE[family] },
];
const rendered = (family: AmiFamily, pin: PinMode, templates = bundled) =>
  renderManifests(templates, { name: 'default', clusterName: 'prod-eu', role: 'KarpenterNodeRole-prod-eu', family, pin, amis: amis(family) });

const messages = (result: { causes: Array<{ message?: string }> }) => result.causes.map((c) => c.message ?? '');

describe('rendered manifests pass the vendored Karpenter v1 CRDs', () => {
  it.each<[AmiFamily, PinMode]>([
    ['al2', 'id'],
    ['al2023', 'id'],
    ['bottlerocket', 'id'],
    ['windows2019', 'id'],
    ['windows2022', 'id'],
    ['windows2025', 'id'],
    ['al2', 'alias'],
    ['al2023', 'alias'],
    ['bottlerocket', 'alias'],
  ])('%s --pin %s', (family, pin) => {
    const { nodeClass, nodePool } = rendered(family, pin);
    expect(messages(ec2NodeClassCrd.validate('v1', nodeClass))).toEqual([]);
    expect(messages(nodePoolCrd.validate('v1', nodePool))).toEqual([]);
  });

  it.each<[PinMode]>([['id'], ['alias']])("a user's template with every hashed field, --pin %s", (pin) => {
    const { nodeClass, nodePool } = rendered('al2023', pin, user);
    expect(messages(ec2NodeClassCrd.validate('v1', nodeClass))).toEqual([]);
    expect(messages(nodePoolCrd.validate('v1', nodePool))).toEqual([]);
  });

  it('the bundled templates themselves apply as is', () => {
    expect(messages(ec2NodeClassCrd.validate('v1', bundled.nodeClass))).toEqual([]);
    expect(messages(nodePoolCrd.validate('v1', bundled.nodePool))).toEqual([]);
  });

  it('a re-render over the previous pin is a valid update (the object the next upgrade applies)', () => {
    const previous = rendered('al2023', 'id').nodeClass;
    const next = structuredClone(previous);
    next.spec.amiSelectorTerms = [{ id: 'ami-0ffffffffffff0001' }, { id: 'ami-0ffffffffffff0002' }];
    expect(messages(ec2NodeClassCrd.validate('v1', next, previous))).toEqual([]);
  });
});

describe("the same check rejects bad pins with the CRD's own message", () => {
  it.each<[string, () => unknown, string]>([
    [
      'an alias term next to an id term',
      () => {
        const { nodeClass } = rendered('al2023', 'alias');
        nodeClass.spec.amiSelectorTerms.push({ id: 'ami-0a1b2c3d4e5f60001' });
        return nodeClass;
      },
      "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
    ],
    [
      'id terms with no amiFamily',
      () => {
        const { nodeClass } = rendered('al2023', 'id');
        delete nodeClass.spec.amiFamily;
        return nodeClass;
      },
      'must specify amiFamily if amiSelectorTerms does not contain an alias',
    ],
    [
      "the blueprint's own template (id terms, amiFamily removed), which render fixes",
      () => user.nodeClass,
      'must specify amiFamily if amiSelectorTerms does not contain an alias',
    ],
    [
      'a Windows alias pinned to a version',
      () => {
        const { nodeClass } = rendered('windows2022', 'id');
        nodeClass.spec.amiSelectorTerms = [{ alias: 'windows2022@v20241109' }];
        delete nodeClass.spec.amiFamily;
        return nodeClass;
      },
      "windows families may only specify version 'latest'",
    ],
    [
      "an alias with another family's amiFamily",
      () => {
        const { nodeClass } = rendered('bottlerocket', 'alias');
        nodeClass.spec.amiFamily = 'AL2023';
        return nodeClass;
      },
      "if set, amiFamily must be 'Bottlerocket' or 'Custom' when using a Bottlerocket alias",
    ],
    [
      'both role and instanceProfile',
      () => {
        const { nodeClass } = rendered('al2023', 'id');
        nodeClass.spec.instanceProfile = 'KarpenterNodeInstanceProfile';
        return nodeClass;
      },
      "must specify exactly one of ['role', 'instanceProfile']",
    ],
  ])('%s', (_name, make, message) => {
    expect(messages(ec2NodeClassCrd.validate('v1', make() as Record<string, unknown>))).toContainEqual(expect.stringContaining(message));
  });

  it('a NodePool whose nodeClassRef group changes on update', () => {
    const { nodePool } = rendered('al2023', 'id');
    const next = structuredClone(nodePool);
    next.spec.template.spec.nodeClassRef.group = 'eks.amazonaws.com' as 'karpenter.k8s.aws';
    expect(messages(nodePoolCrd.validate('v1', next, nodePool))).toContainEqual(expect.stringContaining('nodeClassRef.group is immutable'));
  });
});
