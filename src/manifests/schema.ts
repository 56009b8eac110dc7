// Zod schemas for the parts of EC2NodeClass (karpenter.k8s.aws/v1) and NodePool (karpenter.sh/v1) that render reads
// or writes. Every object is loose: fields we do not model (userData, kubelet, taints, budgets, ...) pass through
// untouched, so a user's template survives rendering byte for byte where render does not set anything.
// The real CRDs stay the authority (vendor/karpenter/crds/v1/); these schemas only catch what render relies on.
import * as z from 'zod'; // a namespace import: a bundle keeps only the parts of zod that are used

export const EC2NODECLASS_API_VERSION = 'karpenter.k8s.aws/v1';
export const NODEPOOL_API_VERSION = 'karpenter.sh/v1';

/** `spec.amiFamily` enum of the v1 CRD. */
export const AMI_FAMILY_FIELDS = ['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022', 'Windows2025'] as const;

const metadata = z.looseObject({ name: z.string().min(1, 'is required') });
const tags = z.record(z.string(), z.string());
const selectorTerms = z.array(z.looseObject({ tags: tags.optional(), id: z.string().optional() })).min(1).max(30);

const amiSelectorTerm = z.looseObject({
  alias: z.string().max(30).optional(),
  id: z.string().regex(/^ami-[0-9a-z]+$/, 'must match ami-[0-9a-z]+').optional(),
  tags: tags.optional(),
  name: z.string().optional(),
  owner: z.string().optional(),
  ssmParameter: z.string().optional(),
});
export type AmiSelectorTerm = z.infer<typeof amiSelectorTerm>;

export const ec2NodeClassSchema = z.looseObject({
  apiVersion: z.literal(EC2NODECLASS_API_VERSION),
  kind: z.literal('EC2NodeClass'),
  metadata,
  spec: z.looseObject({
    amiFamily: z.enum(AMI_FAMILY_FIELDS).optional(),
    amiSelectorTerms: z.array(amiSelectorTerm).min(1).max(30),
    role: z.string().min(1).optional(),
    instanceProfile: z.string().min(1).optional(),
    subnetSelectorTerms: selectorTerms,
    securityGroupSelectorTerms: z.array(z.looseObject({ tags: tags.optional(), id: z.string().optional(), name: z.string().optional() })).min(1).max(30),
  }),
});
export type EC2NodeClass = z.infer<typeof ec2NodeClassSchema>;

// Karpenter's own requirement operators (karpenter.sh_nodepools.yaml, requirements[].operator enum).
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;

export const nodeSelectorRequirementSchema = z.looseObject({
  key: z.string().min(1),
  operator: z.enum(OPERATORS),
  values: z.array(z.string()).optional(),
});
export type NodeSelectorRequirement = z.infer<typeof nodeSelectorRequirementSchema>;

export const nodePoolSchema = z.looseObject({
  apiVersion: z.literal(NODEPOOL_API_VERSION),
  kind: z.literal('NodePool'),
  metadata,
  spec: z.looseObject({
    template: z.looseObject({
      spec: z.looseObject({
        requirements: z.array(nodeSelectorRequirementSchema),
        // group and kind are immutable in the CRD (CEL `self.group == oldSelf.group`), so render never rewrites them.
        nodeClassRef: z.looseObject({
          group: z.literal('karpenter.k8s.aws', { message: 'must be karpenter.k8s.aws: render pins AMIs in an EC2NodeClass' }),
          kind: z.literal('EC2NodeClass', { message: 'must be EC2NodeClass: render pins AMIs in an EC2NodeClass' }),
          name: z.string().min(1),
        }),
      }),
    }),
  }),
});
export type NodePool = z.infer<typeof nodePoolSchema>;

// Two CEL rules of karpenter.k8s.aws_ec2nodeclasses.yaml that a rendered pin must satisfy, with the CRD's messages.
// Templates are not held to them: render replaces amiSelectorTerms, so a template with the blueprint's defect
// (id terms and no amiFamily) is still a usable template.
export const renderedEC2NodeClassSchema = ec2NodeClassSchema.superRefine((nc, ctx) => {
  const terms = nc.spec.amiSelectorTerms;
  const hasAlias = terms.some((t) => t.alias !== undefined);
  if (hasAlias && terms.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['spec', 'amiSelectorTerms'],
      message: "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
    });
  }
  if (!hasAlias && nc.spec.amiFamily === undefined) {
    ctx.addIssue({ code: 'custom', path: ['spec'], message: 'must specify amiFamily if amiSelectorTerms does not contain an alias' });
  }
  if ((nc.spec.role === undefined) === (nc.spec.instanceProfile === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['spec'], message: "must specify exactly one of ['role', 'instanceProfile']" });
  }
});

/** The two templates render works from, and where each came from (for messages). */
export interface ManifestTemplates {
  nodeClass: EC2NodeClass;
  nodePool: NodePool;
  files: { nodeClass: string; nodePool: string };
}

/** `spec.amiSelectorTerms[0].id: must match ami-[0-9a-z]+`, one line per issue, in the order zod found them. */
export function schemaIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}
