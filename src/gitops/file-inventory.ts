// A unit's manifests → the Inventory `plan` reads (the same views a cluster's objects become, karpenter/convert.ts),
// so that `pin` resolves and checks exactly as `plan` and `upgrade` do. Files hold no status and no nodes; what
// stands in for them is said where it comes from: the images EC2 describes for the class's id and name terms now
// (what Karpenter would list in status.amis), and, with a cluster, what that cluster observes. Pure.
import type { ImageView } from '../ami/verify.js';
import { nodeClassView, nodePoolView } from '../karpenter/convert.js';
import { sameAmiSpec } from '../plan/pin.js';
import { ARCH_LABEL } from '../plan/requirements.js';
import type { Inventory, KarpenterApi, NodeClassView } from '../karpenter/views.js';
import type { BuiltObject, Unit } from './objects.js';

/** The ids and exact names (with owners) the unit's classes select: what EC2 is asked to describe. */
export function selectedImages(units: readonly Unit[]): { ids: string[]; names: Array<{ name: string; owner: string }> } {
  const terms = units.flatMap((u) => u.objects.filter((o) => o.kind === 'EC2NodeClass').flatMap((o) => nodeClassView(o.value).amiSelectorTerms));
  return {
    ids: [...new Set(terms.flatMap((t) => (t.id !== undefined ? [t.id] : [])))],
    names: terms.flatMap((t) => (t.name !== undefined && t.owner !== undefined && !/[*?]/.test(t.name) ? [{ name: t.name, owner: t.owner }] : [])),
  };
}

/** The unit as an Inventory; `cluster`: what a reachable cluster observes (its control plane, nodes and classes). */
export function unitInventory(unit: Unit, images: readonly ImageView[], cluster?: Inventory): Inventory {
  const classes = unit.objects.filter((o) => o.kind === 'EC2NodeClass').map((o) => classView(o, images, cluster));
  const filePools = unit.objects.filter((o) => o.kind === 'NodePool').map((o) => ({ ...nodePoolView(o.value), budgetOwners: [] }));
  const names = new Set(classes.map((c) => c.name));
  const clusterPools = (cluster?.nodePools ?? []).filter((p) => names.has(p.nodeClass) && !filePools.some((f) => f.name === p.name));
  const claims = (cluster?.nodeClaims ?? []).filter((c) => c.nodeClass !== undefined && names.has(c.nodeClass));
  return {
    karpenterApi: cluster?.karpenterApi ?? apiOf(unit.objects),
    controlPlane: cluster?.controlPlane ?? { minor: '', gitVersion: '' },
    nodeClasses: classes,
    nodePools: [...filePools, ...clusterPools],
    nodeClaims: claims,
    nodes: cluster?.nodes ?? [],
    pdbs: cluster?.pdbs ?? [],
    pods: cluster?.pods ?? [],
    events: cluster?.events ?? [],
    origin: 'files',
  };
}

/** v1beta1 when any object is written for it (Karpenter v0.32–v0.37), else v1. */
function apiOf(objects: readonly BuiltObject[]): KarpenterApi {
  return objects.some((o) => o.apiVersion.endsWith('/v1beta1')) ? 'v1beta1' : 'v1';
}

// The terms and amiFamily are the files'; what the class selects now is the cluster's status.amis where the cluster
// has the class with the same terms (synced), else the images EC2 describes for the files' terms. The owners of
// fields on a cluster mean nothing for files: the files are what those owners apply.
function classView(o: BuiltObject, images: readonly ImageView[], cluster?: Inventory): NodeClassView {
  const view = nodeClassView(o.value);
  const live = cluster?.nodeClasses.find((c) => c.name === view.name);
  const synced = live !== undefined && sameAmiSpec(live, view);
  const statusAmis = synced ? live.statusAmis : view.amiSelectorTerms.flatMap((t) => images.filter((i) => selects(t, i)).map(statusAmi));
  return { ...view, statusAmis, conditions: synced ? live.conditions : {}, owners: [] };
}

function selects(t: NodeClassView['amiSelectorTerms'][number], i: ImageView): boolean {
  if (t.id !== undefined) return t.id === i.id;
  return t.name !== undefined && t.name === i.name && (t.owner === undefined || t.owner === i.ownerId || t.owner === 'amazon');
}

function statusAmi(i: ImageView): NodeClassView['statusAmis'][number] {
  const arch = i.architecture === 'x86_64' ? 'amd64' : i.architecture;
  return { id: i.id, ...(i.name !== undefined ? { name: i.name } : {}), requirements: arch !== undefined ? [{ key: ARCH_LABEL, operator: 'In', values: [arch] }] : [] };
}
