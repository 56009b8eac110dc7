// The sandbox API server's custom-resource admission against the vendored Karpenter CRDs: decoding (pruning,
// defaults), OpenAPI errors, CEL rules and the Status message, with the exact texts kube-apiserver produces.
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { celErrors, compileCelRules, type CelNode } from '../../src/sandbox/kube-api/crd-cel.js';
import { crdValidator, invalidMessage, type FieldCause } from '../../src/sandbox/kube-api/crd-validation.js';
import {
  loadKarpenterCrds,
  type CustomResourceDefinition,
  type JSONSchemaProps,
} from '../../src/sandbox/kube-api/crds.js';

type Obj = Record<string, unknown>;
const v1 = loadKarpenterCrds('v1');
const v1beta1 = loadKarpenterCrds('v1beta1');
const validatorFor = (kind: string, crds = v1) => crdValidator(crds.find((c) => c.spec.names.kind === kind)!);
const ec2NodeClasses = validatorFor('EC2NodeClass');
const nodePools = validatorFor('NodePool');
const nodeClaims = validatorFor('NodeClaim');

const ec2NodeClass = (spec: Obj = {}): Obj => ({
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'default' },
  spec: {
    amiFamily: 'AL2023',
    role: 'KarpenterNodeRole-prod',
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }],
    amiSelectorTerms: [{ id: 'ami-0a1b2c3d4e5f60001' }, { id: 'ami-0a1b2c3d4e5f60002' }],
    ...spec,
  },
});
const nodePool = (spec: Obj = {}, template: Obj = {}): Obj => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'default' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }],
        ...template,
      },
    },
    ...spec,
  },
});
const templateSpec = () => (nodePool().spec as { template: { spec: Obj } }).template.spec;
const nodeClaim = (spec: Obj = {}, status: Obj = {}): Obj => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'default-x7k2p' },
  spec: {
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
    requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
    ...spec,
  },
  status,
});

const invalid = (field: string, message: string): FieldCause => ({ reason: 'FieldValueInvalid', field, message });
const NOT_CHECKED = invalid(
  '<nil>',
  'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);
const fixture = (path: string) => load(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')) as Obj;

describe('EC2NodeClass', () => {
  it.each<[string, Obj, FieldCause[]]>([
    ['id terms with amiFamily', {}, []],
    ['an alias alone, no amiFamily', { amiFamily: undefined, amiSelectorTerms: [{ alias: 'al2023@v20250801' }] }, []],
    [
      'an alias term next to an id term',
      { amiSelectorTerms: [{ alias: 'al2023@v20250801' }, { id: 'ami-0a1b2c3d4e5f60001' }] },
      [
        invalid(
          'spec.amiSelectorTerms',
          `Invalid value: "array": 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms`,
        ),
      ],
    ],
    [
      'id terms without amiFamily',
      { amiFamily: undefined },
      [
        invalid(
          'spec',
          'Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
        ),
      ],
    ],
    [
      'a pinned Windows alias',
      { amiFamily: undefined, amiSelectorTerms: [{ alias: 'windows2022@v20241109' }] },
      [
        invalid(
          'spec.amiSelectorTerms[0].alias',
          `Invalid value: "string": windows families may only specify version 'latest'`,
        ),
      ],
    ],
    [
      'both role and instanceProfile',
      { instanceProfile: 'KarpenterNodeInstanceProfile' },
      [invalid('spec', `Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`)],
    ],
    [
      'a missing required field (CEL rules are then not run)',
      { subnetSelectorTerms: undefined, instanceProfile: 'both-set' },
      [{ reason: 'FieldValueRequired', field: 'spec.subnetSelectorTerms', message: 'Required value' }, NOT_CHECKED],
    ],
    [
      'an amiFamily outside the enum',
      { amiFamily: 'Ubuntu' },
      [
        {
          reason: 'FieldValueNotSupported',
          field: 'spec.amiFamily',
          message:
            'Unsupported value: "Ubuntu": supported values: "AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"',
        },
        NOT_CHECKED,
      ],
    ],
    [
      'an id that does not match its pattern',
      { amiSelectorTerms: [{ id: 'image-1' }] },
      [
        invalid(
          'spec.amiSelectorTerms[0].id',
          `Invalid value: "image-1": spec.amiSelectorTerms[0].id in body should match 'ami-[0-9a-z]+'`,
        ),
      ],
    ],
    [
      'a number where a string belongs',
      { role: 42 },
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.role',
          message: 'Invalid value: "integer": spec.role in body must be of type string: "integer"',
        },
        NOT_CHECKED,
      ],
    ],
    [
      'too many tags and an over-long alias',
      {
        amiFamily: undefined,
        amiSelectorTerms: [{ alias: 'al2023@v20250801-and-far-too-long' }],
        subnetSelectorTerms: [{ tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }],
      },
      [
        {
          reason: 'FieldValueTooMany',
          field: 'spec.subnetSelectorTerms[0].tags',
          message: 'Too many: 21: must have at most 20 items',
        },
        {
          reason: 'FieldValueTooLong',
          field: 'spec.amiSelectorTerms[0].alias',
          message: 'Too long: may not be longer than 30',
        },
        NOT_CHECKED,
      ],
    ],
  ])('%s', (_name, spec, causes) => {
    expect(ec2NodeClasses.validate('v1', ec2NodeClass(spec)).causes).toEqual(causes);
  });

  it('leaves the input untouched and returns the defaulted copy (metadataOptions)', () => {
    const input = ec2NodeClass();
    const { object } = ec2NodeClasses.validate('v1', input);
    expect(input).toEqual(ec2NodeClass());
    expect((object.spec as Obj).metadataOptions).toEqual({
      httpEndpoint: 'enabled',
      httpProtocolIPv6: 'disabled',
      httpPutResponseHopLimit: 1,
      httpTokens: 'required',
    });
  });
});

describe('NodePool', () => {
  it('applies the defaults, recursively, before validating', () => {
    const { object, causes } = nodePools.validate('v1', nodePool());
    expect(causes).toEqual([]);
    expect(object.spec).toMatchObject({
      disruption: {
        consolidateAfter: '0s',
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        budgets: [{ nodes: '10%' }],
      },
      template: { spec: { expireAfter: '720h' } },
    });
    const budget = nodePools.validate(
      'v1',
      nodePool({ disruption: { consolidateAfter: '5m', budgets: [{ reasons: ['Drifted'] }] } }),
    );
    expect((budget.object.spec as Obj).disruption).toEqual({
      consolidateAfter: '5m',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      budgets: [{ nodes: '10%', reasons: ['Drifted'] }],
    });
  });

  it('prunes unknown fields and a null without default, and keeps metadata as sent', () => {
    const metadata = { name: 'default', labels: { team: 'a' }, notAMetadataField: true };
    const input = {
      ...nodePool(
        { weight: null, surprise: 1 },
        { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default', extra: 'x' } },
      ),
      metadata,
      status: { bogus: 1 },
    };
    const { object, causes } = nodePools.validate('v1', { ...input, top: 'level' });
    expect(causes).toEqual([]);
    expect(object).not.toHaveProperty('top');
    expect(object.metadata).toEqual(metadata);
    expect(object.status).toEqual({ nodes: 0 }); // pruned, then defaulted like any other field
    expect(object.spec).not.toHaveProperty('surprise');
    expect(object.spec).not.toHaveProperty('weight');
    expect(object).toHaveProperty('spec.template.spec.nodeClassRef', {
      group: 'karpenter.k8s.aws',
      kind: 'EC2NodeClass',
      name: 'default',
    });
  });

  it.each<[string, Obj, FieldCause[]]>([
    [
      'a budget whose nodes is not a count or a percentage',
      { disruption: { consolidateAfter: '0s', budgets: [{ nodes: 'abc' }] } },
      [
        invalid(
          'spec.disruption.budgets[0].nodes',
          `Invalid value: "abc": spec.disruption.budgets[0].nodes in body should match '^((100|[0-9]{1,2})%|[0-9]+)$'`,
        ),
      ],
    ],
    [
      'a schedule without a duration',
      { disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1', schedule: '@daily' }] } },
      [invalid('spec.disruption.budgets', `Invalid value: "array": 'schedule' must be set with 'duration'`)],
    ],
    [
      'a weight below its minimum',
      { weight: 0 },
      [invalid('spec.weight', 'Invalid value: 0: spec.weight in body should be greater than or equal to 1')],
    ],
    [
      'a repeated reason in a list-type set',
      { disruption: { consolidateAfter: '0s', budgets: [{ nodes: '1', reasons: ['Drifted', 'Drifted'] }] } },
      [
        {
          reason: 'FieldValueDuplicate',
          field: 'spec.disruption.budgets[0].reasons[1]',
          message: 'Duplicate value: "Drifted"',
        },
      ],
    ],
    [
      'a restricted template label (map keys render as [key] in CEL field paths)',
      { template: { metadata: { labels: { 'karpenter.sh/nodepool': 'x' } }, spec: templateSpec() } },
      [
        invalid(
          'spec.template.metadata.labels',
          'Invalid value: "object": label "karpenter.sh/nodepool" is restricted',
        ),
      ],
    ],
  ])('%s', (_name, spec, causes) => {
    expect(nodePools.validate('v1', nodePool(spec)).causes).toEqual(causes);
  });

  it('rejects a nodeClassRef group change on update only', () => {
    const previous = nodePool();
    const next = nodePool({}, { nodeClassRef: { group: 'eks.amazonaws.com', kind: 'EC2NodeClass', name: 'default' } });
    expect(nodePools.validate('v1', next).causes).toEqual([]);
    expect(nodePools.validate('v1', next, previous).causes).toEqual([
      invalid('spec.template.spec.nodeClassRef', 'Invalid value: "object": nodeClassRef.group is immutable'),
    ]);
  });

  it('v1beta1: an EC2NodeClass create skips the role/instanceProfile transition rule, an update runs it', () => {
    const v1beta1NodeClasses = validatorFor('EC2NodeClass', v1beta1);
    const created: Obj = {
      ...ec2NodeClass({ amiSelectorTerms: [{ id: 'ami-0a1b2c3d4e5f60001' }] }),
      apiVersion: 'karpenter.k8s.aws/v1beta1',
    };
    const switched: Obj = {
      ...created,
      spec: { ...(created.spec as Obj), role: undefined, instanceProfile: 'profile' },
    };
    expect(v1beta1NodeClasses.validate('v1beta1', created).causes).toEqual([]);
    expect(v1beta1NodeClasses.validate('v1beta1', switched).causes).toEqual([]);
    expect(v1beta1NodeClasses.validate('v1beta1', switched, created).causes).toEqual([
      invalid(
        'spec',
        "Invalid value: \"object\": changing from 'instanceProfile' to 'role' is not supported. You must delete and recreate this node class if you want to change this.",
      ),
    ]);
  });

  it('validates a v1beta1 object against the v1beta1 schema, with its own defaults', () => {
    const old: Obj = { ...nodePool(), apiVersion: 'karpenter.sh/v1beta1' };
    (old.spec as { template: { spec: Obj } }).template.spec.nodeClassRef = { name: 'default' };
    const { object, causes } = validatorFor('NodePool', v1beta1).validate('v1beta1', old);
    expect(causes).toEqual([]);
    expect((object.spec as Obj).disruption).toEqual({
      consolidationPolicy: 'WhenUnderutilized',
      expireAfter: '720h',
      budgets: [{ nodes: '10%' }],
    });
  });
});

describe('NodeClaim', () => {
  it('accepts a status change but rejects a spec change through its `self == oldSelf` rule', () => {
    const created = nodeClaim();
    expect(nodeClaims.validate('v1', created).causes).toEqual([]);
    expect(nodeClaims.validate('v1', nodeClaim({}, { imageID: 'ami-0a1b2c3d4e5f60002' }), created).causes).toEqual([]);
    expect(nodeClaims.validate('v1', nodeClaim({ expireAfter: '24h' }), created).causes).toEqual([
      invalid('spec', 'Invalid value: "object": spec is immutable'),
    ]);
  });

  it('passes the drifted NodeClaim fixture', () => {
    expect(nodeClaims.validate('v1', fixture('nodeclaim-drifted.yaml')).causes).toEqual([]);
  });
});

// The EC2NodeClass of each upstream example (/work/shared/karpenter/examples/v1/, aws/karpenter-provider-aws
// examples/v1 at v1.14.1), comments and userData dropped; every one of them is accepted by the real API server.
const EXAMPLE_NODE_CLASSES: Record<string, Obj> = {
  'al2-custom-ami': { amiFamily: 'AL2', amiSelectorTerms: [{ id: 'ami-123' }, { id: 'ami-456' }] },
  bottlerocket: {
    amiFamily: undefined,
    amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
    blockDeviceMappings: [
      { deviceName: '/dev/xvda', ebs: { volumeType: 'gp3', volumeSize: '4Gi', deleteOnTermination: true } },
      { deviceName: '/dev/xvdb', ebs: { volumeType: 'gp3', volumeSize: '20Gi', deleteOnTermination: true } },
    ],
  },
  'custom-family-with-alias': { amiFamily: 'Custom', amiSelectorTerms: [{ alias: 'bottlerocket@latest' }] },
  'general-purpose': { amiFamily: undefined, amiSelectorTerms: [{ alias: 'al2023@latest' }] },
  'windows-2022': {
    amiFamily: undefined,
    amiSelectorTerms: [{ alias: 'windows2022@latest' }],
    metadataOptions: { httpProtocolIPv6: 'disabled', httpTokens: 'required' },
  },
};

describe('what the real API server accepts', () => {
  it.each(Object.entries(EXAMPLE_NODE_CLASSES))('the %s example EC2NodeClass', (_name, spec) => {
    const role = 'KarpenterNodeRole-${CLUSTER_NAME}';
    expect(ec2NodeClasses.validate('v1', ec2NodeClass({ ...spec, role })).causes).toEqual([]);
  });

  it('the max-node-lifetime example NodePool', () => {
    const spec = { disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '60s' } };
    expect(
      nodePools.validate('v1', nodePool(spec, { expireAfter: '168h', terminationGracePeriod: '24h' })).causes,
    ).toEqual([]);
  });

  it.each(['ec2nodeclass-amis-resolved.yaml', 'templates/hashed-fields/nodepool.yaml'])('the %s fixture', (path) => {
    const object = fixture(path);
    expect(validatorFor(object.kind as string).validate('v1', object).causes).toEqual([]);
  });

  it('rejects the blueprint drift runbook template: id terms and no amiFamily (DOMAIN.md)', () => {
    expect(ec2NodeClasses.validate('v1', fixture('templates/hashed-fields/ec2nodeclass.yaml')).causes).toEqual([
      invalid('spec', 'Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias'),
    ]);
  });
});

// What the Karpenter CRDs do not use but the API promises: a small CRD of our own exercises it.
const widgetSchema = (spec: JSONSchemaProps): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec },
});
const widgetCrd = (spec: JSONSchemaProps): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Cluster',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: widgetSchema(spec) } }],
  },
});
const widgets = crdValidator(
  widgetCrd({
    type: 'object',
    properties: {
      replicas: {
        type: 'integer',
        'x-kubernetes-validations': [
          {
            rule: 'self >= oldSelf',
            messageExpression: "'may not shrink from ' + string(oldSelf)",
            reason: 'FieldValueForbidden',
          },
        ],
      },
      size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      note: { type: 'string', nullable: true },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, port: { type: 'integer' } },
        },
      },
      extra: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { known: { type: 'string', default: 'd' } },
      },
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
      },
      createdAt: { type: 'string', format: 'date-time' },
    },
    'x-kubernetes-validations': [
      { rule: "!has(self.note) || self.note != ''", fieldPath: '.note', message: 'note may not be empty' },
      {
        rule: 'oldSelf.hasValue() || !has(self.replicas) || self.replicas < 10',
        optionalOldSelf: true,
        message: 'new widgets start small',
      },
    ],
  }),
);
const widget = (spec: Obj): Obj => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

describe('rule and schema features beyond the Karpenter CRDs', () => {
  it.each<[string, Obj, Obj | undefined, FieldCause[]]>([
    ['a transition rule skipped on create', { replicas: 5 }, undefined, []],
    [
      'messageExpression and reason on a failing transition rule',
      { replicas: 15 },
      { replicas: 20 },
      [{ reason: 'FieldValueForbidden', field: 'spec.replicas', message: 'Forbidden: may not shrink from 20' }],
    ],
    [
      'optionalOldSelf: evaluated on create',
      { replicas: 20 },
      undefined,
      [invalid('spec', 'Invalid value: "object": new widgets start small')],
    ],
    ['optionalOldSelf: and on update', { replicas: 30 }, { replicas: 20 }, []],
    [
      'fieldPath names the field',
      { note: '' },
      undefined,
      [invalid('spec.note', 'Invalid value: "object": note may not be empty')],
    ],
    ['nullable keeps null', { note: null }, undefined, []],
    ['int-or-string takes both', { size: '3' }, { size: 3 }, []],
    [
      'int-or-string takes nothing else',
      { size: true },
      undefined,
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.size',
          message: 'Invalid value: "boolean": spec.size in body must be of type integer,string: "boolean"',
        },
        NOT_CHECKED,
      ],
    ],
    [
      'a list-type map with a repeated key',
      {
        ports: [
          { name: 'http', port: 80 },
          { name: 'http', port: 81 },
        ],
      },
      undefined,
      [
        {
          reason: 'FieldValueDuplicate',
          field: 'spec.ports[1]',
          message: 'Duplicate value: map[string]interface {}{"name":"http"}',
        },
      ],
    ],
    [
      'a date-time that is not one',
      { createdAt: 'yesterday' },
      undefined,
      [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.createdAt',
          message: 'Invalid value: "yesterday": spec.createdAt in body must be of type date-time: "yesterday"',
        },
        NOT_CHECKED,
      ],
    ],
    ['an RFC 3339 date-time', { createdAt: '2025-08-20T10:00:00.5+02:00' }, undefined, []],
  ])('%s', (_name, spec, old, causes) => {
    expect(widgets.validate('v1', widget(spec), old && widget(old)).causes).toEqual(causes);
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields and the meta of an embedded resource', () => {
    const template = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', anything: 1 },
      spec: { a: 'b', unknown: 1 },
      junk: 1,
    };
    const { object } = widgets.validate('v1', widget({ extra: { deep: { x: 1 } }, template }));
    expect(object.spec).toEqual({
      extra: { deep: { x: 1 }, known: 'd' },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', anything: 1 }, spec: { a: 'b' } },
    });
  });

  it.each<[string, JSONSchemaProps, RegExp]>([
    [
      'a schema keyword it would not enforce',
      { type: 'object', oneOf: [] } as JSONSchemaProps,
      /schema keyword oneOf is not supported/,
    ],
    [
      'a rule calling a function it lacks',
      { type: 'string', 'x-kubernetes-validations': [{ rule: 'url(self).getHost() != ""' }] },
      /rule "url\(self\).getHost\(\) != \\"\\"" does not compile/,
    ],
  ])('refuses, when compiling, %s', (_name, spec, error) => {
    expect(() => crdValidator(widgetCrd(spec))).toThrow(error);
  });
});

describe('invalidMessage', () => {
  const alias = invalid(
    'spec',
    'Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
  );
  const required: FieldCause = { reason: 'FieldValueRequired', field: 'spec.role', message: 'Required value' };
  it.each<[FieldCause[], string]>([
    [[], 'EC2NodeClass.karpenter.k8s.aws "x" is invalid'],
    [
      [alias],
      'EC2NodeClass.karpenter.k8s.aws "x" is invalid: spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
    ],
    [
      [required, alias, required],
      `EC2NodeClass.karpenter.k8s.aws "x" is invalid: [spec.role: Required value, spec: ${alias.message}]`,
    ],
  ])('%j', (causes, message) => {
    expect(invalidMessage('EC2NodeClass', 'karpenter.k8s.aws', 'x', causes)).toBe(message);
  });
});

/** A value for every property, one item per list and one entry per map, so every rule in the schema runs. */
function sample(s: JSONSchemaProps): unknown {
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  if (s['x-kubernetes-int-or-string']) return '1';
  const additional = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  switch (s.type) {
    case 'object':
      if (additional) return { 'example.com/key': sample(additional) };
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, p]) => [k, sample(p)]));
    case 'array':
      return [sample(s.items!)];
    case 'integer':
      return s.minimum ?? 1;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    default:
      return '1'; // a string that int() and the requirement rules (`int(x.values[0]) >= 0`) accept
  }
}

describe('every x-kubernetes-validations rule of the vendored CRDs', () => {
  const versions = [...v1, ...v1beta1].flatMap((crd: CustomResourceDefinition) =>
    crd.spec.versions.map(
      (v) => [`${crd.metadata.name} ${v.name}`, compileCelRules(v.schema!.openAPIV3Schema)] as const,
    ),
  );

  it('compiles: as many rules as the six files carry', () => {
    const count = (node: CelNode | undefined): number =>
      !node
        ? 0
        : node.rules.length +
          [...node.properties.values()].reduce((n, child) => n + count(child), 0) +
          count(node.additionalProperties) +
          count(node.items);
    const inYaml = ['v1', 'v1beta1']
      .flatMap((dir) =>
        ['karpenter.k8s.aws_ec2nodeclasses.yaml', 'karpenter.sh_nodeclaims.yaml', 'karpenter.sh_nodepools.yaml'].map(
          (f) => readFileSync(new URL(`../../vendor/karpenter/crds/${dir}/${f}`, import.meta.url), 'utf8'),
        ),
      )
      .reduce((n, text) => n + (text.match(/^\s*(?:- )?rule: /gm) ?? []).length, 0);
    expect(inYaml).toBe(226);
    expect(versions.reduce((n, [, node]) => n + count(node), 0)).toBe(inYaml);
  });

  // Transition rules run too: the old value is the same sample. A rule may be false on the sample; none may fail to run.
  it.each(versions)('%s: evaluates on a fully populated object without an evaluation error', (_name, node) => {
    const value = sample(node!.schema);
    const causes: FieldCause[] = [];
    celErrors(node, value, value, '', causes);
    expect(causes.filter((c) => / evaluating rule: |did not match a supported operator/.test(c.message))).toEqual([]);
  });
});
