// What a pin replaces: floating terms are explained (info), custom images are refused unless --replace-custom-amis.
import { describe, expect, it } from 'vitest';
import type { NodeClassView } from '../../src/karpenter/views.js';
import { plan, type PlanOptions } from '../../src/plan/plan.js';
import { floatingTerm } from '../../src/plan/selectors.js';
import { NOW, idStatusAmis, inventory, nodeClass, targetAmis } from './factories.js';

const run = (view: Partial<NodeClassView>, overrides: Partial<PlanOptions> = {}) =>
  plan(
    inventory({ nodeClasses: [nodeClass(view)] }),
    targetAmis(),
    { to: '1.31', pin: 'id', release: 'latest', fieldManager: 'karp-drift', ...overrides },
    NOW,
  );
const codes = (view: Partial<NodeClassView>, overrides: Partial<PlanOptions> = {}) =>
  run(view, overrides)
    .checks.filter((c) => c.code === 'SELECTOR-REPLACED' || c.code === 'CUSTOM-AMI')
    .map((c) => `${c.code} ${c.level}`);

const GOLDEN = [
  { id: 'ami-0900000000000000a', name: 'acme-golden-al2023-x86_64-1.30-20240920', requirements: [] },
];

describe('floatingTerm', () => {
  it.each<[string, NodeClassView['amiSelectorTerms'][number], boolean]>([
    ['a pinned alias', { alias: 'al2023@v20240917' }, false],
    ['@latest', { alias: 'al2023@latest' }, true],
    ['an id', { id: 'ami-0123456789abcdef0' }, false],
    ['tags', { tags: { 'acme.io/golden': 'true' } }, true],
    ['a name pattern with an owner', { name: 'amazon-eks-node-al2023-*', owner: 'amazon' }, true],
    ['an owner alone', { owner: 'self' }, true],
    ['an SSM parameter', { ssmParameter: '/acme/ami/eks-node' }, true],
  ])('%s', (_name, term, floats) => {
    expect(floatingTerm(term) !== undefined).toBe(floats);
  });
});

describe('plan: what the pin replaces', () => {
  it.each<[string, Partial<NodeClassView>, Partial<PlanOptions>, string[]]>([
    ['a pinned alias: nothing to explain', {}, {}, []],
    ['@latest: explained', { amiSelectorTerms: [{ alias: 'al2023@latest' }] }, {}, ['SELECTOR-REPLACED info']],
    [
      'tags selecting EKS-optimized images: explained',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { team: 'platform' } }], statusAmis: idStatusAmis(['amd64/standard']) },
      {},
      ['SELECTOR-REPLACED info'],
    ],
    [
      'tags selecting custom images: refused',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { 'acme.io/golden': 'true' } }], statusAmis: GOLDEN },
      {},
      ['CUSTOM-AMI error', 'SELECTOR-REPLACED info'],
    ],
    [
      'an id of a custom image: refused',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ id: GOLDEN[0]!.id }], statusAmis: GOLDEN },
      {},
      ['CUSTOM-AMI error'],
    ],
    [
      'custom images with --replace-custom-amis: a warning',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ id: GOLDEN[0]!.id }], statusAmis: GOLDEN },
      { replaceCustomAmis: true },
      ['CUSTOM-AMI warning'],
    ],
    [
      'a status.amis entry without a name proves nothing',
      { amiFamily: 'AL2023', amiSelectorTerms: [{ id: GOLDEN[0]!.id }], statusAmis: [{ id: GOLDEN[0]!.id, requirements: [] }] },
      {},
      [],
    ],
  ])('%s', (_name, view, overrides, expected) => {
    expect(codes(view, overrides)).toEqual(expected);
  });

  it('says what the floating terms resolve to now, what replaces them, and that rollback restores them', () => {
    const check = run({ amiSelectorTerms: [{ alias: 'al2023@latest' }] }).checks.find((c) => c.code === 'SELECTOR-REPLACED');
    expect(check?.message).toMatch(/^ec2nodeclass\/default: the pin replaces terms that float with id=ami-/);
    expect(check?.evidence[0]).toBe("alias=al2023@latest follows the newest release for the control plane's version");
    expect(check?.evidence[1]).toMatch(/^they resolve now to ami-\S+ \(amazon-eks-node-al2023-x86_64-standard-1\.30-v20240917\)/);
    expect(check?.next).toBe('karp-drift rollback restores the floating terms');
  });

  it('a custom image blocks the plan and names the image', () => {
    const p = run({ amiFamily: 'AL2023', amiSelectorTerms: [{ tags: { 'acme.io/golden': 'true' } }], statusAmis: GOLDEN });
    expect(p.blocked).toBe(true);
    const check = p.checks.find((c) => c.code === 'CUSTOM-AMI')!;
    expect(check.evidence).toEqual([
      'amiSelectorTerms: tags={acme.io/golden: true}',
      'status.amis: ami-0900000000000000a (acme-golden-al2023-x86_64-1.30-20240920)',
    ]);
    expect(check.next).toContain('--replace-custom-amis');
  });
});
