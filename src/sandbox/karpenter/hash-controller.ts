// The hash controllers (kubernetes-sigs/karpenter pkg/controllers/nodepool/hash/controller.go, karpenter-provider-aws
// pkg/controllers/nodeclass/hash/controller.go): each NodePool and EC2NodeClass carries its static-drift hash and the
// hash version as annotations, rewritten whenever the spec changes; the drift controller compares them with the ones
// each NodeClaim was created with (hashes.ts). When the object's hash version is not the release's (an upgrade that
// changed how hashes are computed), the NodeClaims are re-stamped first: the version always, the hash only on claims
// not already Drifted, so an upgrade drifts nothing (DOMAIN.md §2.2).
import type { KubeObject } from '../kube-api/types.js';
import { EC2NODECLASSES, NODECLAIMS, NODEPOOLS, type SimContext } from './context.js';
import { NODECLASS_HASH, NODECLASS_HASH_VERSION, NODEPOOL_HASH, NODEPOOL_HASH_VERSION, nodeClassHash, nodePoolHash } from './hashes.js';
import { conditionOf } from './objects.js';

interface HashKind {
  resource: string;
  hashKey: string;
  versionKey: string;
  version: (ctx: SimContext) => string;
  hash: (object: KubeObject) => string;
  /** Does this NodeClaim belong to the object? */
  owns: (claim: KubeObject, name: string) => boolean;
}

const KINDS: readonly HashKind[] = [
  {
    resource: NODEPOOLS,
    hashKey: NODEPOOL_HASH,
    versionKey: NODEPOOL_HASH_VERSION,
    version: (ctx) => ctx.hashVersions.nodePool,
    hash: nodePoolHash,
    owns: (claim, name) => claim.metadata.labels?.['karpenter.sh/nodepool'] === name,
  },
  {
    resource: EC2NODECLASSES,
    hashKey: NODECLASS_HASH,
    versionKey: NODECLASS_HASH_VERSION,
    version: (ctx) => ctx.hashVersions.nodeClass,
    hash: nodeClassHash,
    owns: (claim, name) => (claim.spec as { nodeClassRef?: { name?: string } } | undefined)?.nodeClassRef?.name === name,
  },
];

export function reconcileHashes(ctx: SimContext): void {
  for (const kind of KINDS) {
    for (const object of ctx.store.list(kind.resource)) {
      if (object.metadata.deletionTimestamp) continue;
      if (ctx.budget.exhausted()) return;
      reconcileHash(ctx, kind, object);
    }
  }
}

function reconcileHash(ctx: SimContext, kind: HashKind, object: KubeObject): void {
  const name = object.metadata.name ?? '';
  const annotations = object.metadata.annotations ?? {};
  const version = kind.version(ctx);
  // Hashing on every pass would be waste: a spec change bumps the generation, so the hash of a generation is kept.
  const cacheKey = `${kind.resource}/${name}`;
  const cached = ctx.memory.hashes.get(cacheKey);
  const hash = cached && cached.generation === object.metadata.generation ? cached.hash : kind.hash(object);
  ctx.memory.hashes.set(cacheKey, { generation: object.metadata.generation ?? 1, hash });
  if (annotations[kind.hashKey] === hash && annotations[kind.versionKey] === version) return;
  if (annotations[kind.versionKey] !== version) restamp(ctx, kind, name, hash, version);
  ctx.store.update(
    kind.resource,
    { ...object, metadata: { ...object.metadata, annotations: { ...annotations, [kind.hashKey]: hash, [kind.versionKey]: version } } },
    { manager: 'karpenter' },
  );
}

/** updateNodeClaimHash: the claims of an older hash version get the new one, and (unless Drifted) the new hash. */
function restamp(ctx: SimContext, kind: HashKind, name: string, hash: string, version: string): void {
  for (const claim of ctx.store.list(NODECLAIMS)) {
    const annotations = claim.metadata.annotations ?? {};
    if (!kind.owns(claim, name) || annotations[kind.versionKey] === version) continue;
    const drifted = conditionOf(claim, 'Drifted') !== undefined;
    ctx.store.update(
      NODECLAIMS,
      {
        ...claim,
        metadata: { ...claim.metadata, annotations: { ...annotations, [kind.versionKey]: version, ...(drifted ? {} : { [kind.hashKey]: hash }) } },
      },
      { manager: 'karpenter' },
    );
  }
}
