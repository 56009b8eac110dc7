// The blockers that come from the pods on a drifted node (DOMAIN.md §2.5 step 3–4, §2.7): do-not-disrupt and PDBs,
// which Karpenter checks when it filters candidates, and its scheduling simulation, which it runs next for each
// candidate whose NodePool has budget left. The first two hold only a NodeClaim without its own
// terminationGracePeriod (drift is "eventual"); the simulation holds every NodeClaim, because the drain never starts.
import { doNotDisrupt, isActivePod, pdbBlock, pdbKey } from '../karpenter/disruptable.js';
import type { EventView, NodeClaimView, NodeView, PdbView, PodView } from '../karpenter/views.js';
import { listed, quotes } from './evidence.js';
import { eventTime } from './snapshot.js';
import type { Blocker, Facts, Pool } from './blocker.js';
import { isDisrupting, isTrue, nodeOf } from './track.js';
import { humanDuration, plural, utcTime } from '../text/words.js';
import { inOrder } from '../text/order.js';

interface Held {
  claim: NodeClaimView;
  node: NodeView;
  pod?: PodView;
  /** When a duration-valued do-not-disrupt runs out. */
  until?: Date;
}

const TGP_DOES_NOT_HELP =
  'terminationGracePeriod does not help: Karpenter never starts the drain (kubernetes-sigs/karpenter#2984)';

/** The pod-level blockers of a NodePool, STALL-NO-TGP for those a terminationGracePeriod would get past. */
export function podBlockers(f: Facts, pool: Pool): Blocker[] {
  const unschedulable = unschedulableHeld(f, pool);
  const out = holdingPods(f, pool, new Set(unschedulable.map((h) => h.claim.name)));
  if (unschedulable.length > 0) out.push(unschedulableBlocker(f, pool, unschedulable));
  return out;
}

// Pod-level blockers stop drift from picking a node unless its NodeClaim has a terminationGracePeriod; once the
// NodeClaim is deleting they hold the drain (until that period ends, if there is one). A Node's own
// do-not-disrupt stops the pick whatever the NodeClaim says, and does not hold a drain. A NodeClaim the scheduling
// simulation also holds gets no STALL-NO-TGP: a terminationGracePeriod would not get it past the simulation; nor
// does one held only by do-not-disrupt durations, which run out by themselves. Which pods count, and when an
// annotation holds, is Karpenter's rule in karpenter/disruptable.ts.
function holdingPods(f: Facts, pool: Pool, unschedulable: ReadonlySet<string>): Blocker[] {
  const held: Held[] = [];
  const byPdb = new Map<string, { pdb: PdbView; held: Held[] }>();
  const multiple: Array<Held & { pdbs: PdbView[] }> = [];
  const forever = new Map<string, NodeClaimView>();
  for (const claim of pool.old) {
    const node = nodeOf(f.snapshot, claim);
    if (node === undefined || (!isTrue(claim.conditions, 'Drifted') && !isDisrupting(claim, node))) continue;
    const draining = claim.deleting || node.deleting;
    // karp-drift's own do-not-disrupt is STALL-HELD (stalls.ts), with karp-drift's way out.
    if (node.doNotDisrupt && node.heldBy === undefined && !draining) held.push({ claim, node });
    if (!draining && claim.terminationGracePeriod !== undefined) continue;
    for (const pod of f.podsByNode.get(node.name) ?? []) {
      if (!isActivePod(pod)) continue;
      const dnd = doNotDisrupt(pod, f.now);
      if (dnd.state === 'active') held.push({ claim, node, pod, ...(dnd.until ? { until: dnd.until } : {}) });
      const block = pdbBlock(pod, f.context.pdbs, f.now);
      if (block?.multiple === true) multiple.push({ claim, node, pod, pdbs: block.pdbs });
      else if (block !== undefined) {
        const pdb = block.pdbs[0]!;
        const entry = byPdb.get(pdbKey(pdb)) ?? { pdb, held: [] };
        entry.held.push({ claim, node, pod });
        byPdb.set(pdbKey(pdb), entry);
      }
      const indefinite = (dnd.state === 'active' && dnd.value === 'true') || block !== undefined;
      if (indefinite && claim.terminationGracePeriod === undefined && !unschedulable.has(claim.name)) {
        forever.set(claim.name, claim);
      }
    }
  }
  const out: Blocker[] = [];
  if (held.length > 0) out.push(doNotDisruptBlocker(f, pool, held));
  for (const [key, { pdb, held }] of byPdb) out.push(pdbBlocker(f, pool, key, pdb, held));
  if (multiple.length > 0) out.push(multiplePdbBlocker(f, pool, multiple));
  if (forever.size > 0) {
    out.push({
      code: 'STALL-NO-TGP',
      nodePool: pool.name,
      message: `${plural(forever.size, 'blocked NodeClaim')} without terminationGracePeriod can stay blocked forever (NodePool ${pool.name})`,
      evidence: [
        ...listed(
          [...forever.values()].map((c) => `NodeClaim ${c.name} has no spec.terminationGracePeriod`),
          'NodeClaims',
        ),
        'a NodeClaim copies terminationGracePeriod when it is created and its spec is immutable: a NodePool change helps only NodeClaims created after it',
      ],
      next: `Remove what holds them (the other blockers of this NodePool); for the next rollout set spec.template.spec.terminationGracePeriod on NodePool "${pool.name}" (e.g. 24h), after which drift evicts past PDBs and do-not-disrupt (the change itself drifts the NodePool's NodeClaims: NodePoolDrifted)`,
    });
  }
  return out;
}

function heldText(h: Held): string {
  const where = `node ${h.node.name} (NodeClaim ${h.claim.name})`;
  return h.pod === undefined ? where : `pod ${h.pod.namespace}/${h.pod.name} on ${where}`;
}

/** Karpenter's DisruptionBlocked events on the Nodes and NodeClaims of `held` whose message `matches`. */
function blockedEvents(f: Facts, held: readonly Held[], matches: (message: string) => boolean): EventView[] {
  const involved = new Set(held.flatMap((h) => [h.node.name, h.claim.name]));
  return f.events.filter(
    (e) => e.reason === 'DisruptionBlocked' && involved.has(e.involvedName ?? '') && matches(e.message),
  );
}

const DO_NOT_DISRUPT = /karpenter\.sh\/do-not-disrupt/;

function doNotDisruptBlocker(f: Facts, pool: Pool, held: Held[]): Blocker {
  const nodes = new Set(held.map((h) => h.node.name));
  const first = held[0]!;
  const others = held.length > 1 ? ' (likewise for the others listed)' : '';
  const value = (h: Held) =>
    h.pod === undefined
      ? ': "true"'
      : h.until === undefined
        ? `: "${h.pod.doNotDisrupt}"`
        : `: "${h.pod.doNotDisrupt}", which holds until ${utcTime(h.until)} (${humanDuration(h.until.getTime() - f.now.getTime())} from now)`;
  const remove =
    first.pod === undefined
      ? `kubectl annotate node ${first.node.name} karpenter.sh/do-not-disrupt-`
      : `kubectl annotate pod ${first.pod.name} -n ${first.pod.namespace} karpenter.sh/do-not-disrupt-`;
  return {
    code: 'STALL-DO-NOT-DISRUPT',
    nodePool: pool.name,
    message: `karpenter.sh/do-not-disrupt holds ${plural(nodes.size, 'drifted node')} (NodePool ${pool.name})`,
    evidence: [
      ...listed(
        held.map((h) => `${heldText(h)} is annotated karpenter.sh/do-not-disrupt${value(h)}`),
        'annotations',
      ),
      ...quotes(
        blockedEvents(f, held, (m) => DO_NOT_DISRUPT.test(m)),
        f.now,
      ),
    ],
    next:
      first.pod === undefined
        ? `When its workloads may move, remove the annotation: ${remove}${others}`
        : first.until !== undefined
          ? `Wait until ${utcTime(first.until)}, when its do-not-disrupt runs out, or remove the annotation once the pod may be evicted: ${remove}${others}`
          : `When the pod may be evicted, remove the annotation: ${remove}${others}`,
  };
}

const PREVENTS = /prevents pod evictions/i;
const MULTIPLE = /does not support multiple PDBs/i;
// v1.6+: `(PodDisruptionBudget=[ns/name])`, `(PodDisruptionBudget(s)=[ns/a ns/b])`; seen without brackets too.
const NAMED_AFTER = /PodDisruptionBudget(?:\(s\))?=\[?([^\])]*)\]?\)/;
// v1.0–v1.5: `pdb "ns/name" prevents pod evictions`, `Pdb "ns/name" …`; consolidation: `pdb ns/name prevents …`.
const NAMED_BEFORE = /\bpdb "?([^"\s]+\/[^"\s]+)"? prevents pod evictions/i;

/**
 * The PDBs a Karpenter DisruptionBlocked message blames, in every wording it has used (DOMAIN.md §2.7), or
 * undefined for a message about something else. `multiple`: the pod is under several PDBs.
 */
export function pdbsBlamedIn(message: string): { multiple: boolean; pdbs: string[] } | undefined {
  const multiple = MULTIPLE.test(message);
  if (!multiple && !PREVENTS.test(message)) return undefined;
  const after = NAMED_AFTER.exec(message);
  if (after != null) return { multiple, pdbs: after[1]!.split(/[\s,]+/).filter((k) => k !== '') };
  const before = NAMED_BEFORE.exec(message);
  return { multiple, pdbs: before != null ? [before[1]!] : [] };
}

// The drain's own complaint (FailedDraining on the Node) names no PDB: it belongs to every PDB blocker of the node.
function drainEvents(f: Facts, held: readonly Held[]): EventView[] {
  const nodes = new Set(held.map((h) => h.node.name));
  return f.events.filter((e) => e.reason === 'FailedDraining' && nodes.has(e.involvedName ?? ''));
}

function pdbBlocker(f: Facts, pool: Pool, key: string, pdb: PdbView, held: Held[]): Blocker {
  const nodes = new Set(held.map((h) => h.node.name));
  const status = [
    pdb.currentHealthy !== undefined ? `currentHealthy ${pdb.currentHealthy}` : '',
    pdb.desiredHealthy !== undefined ? `desiredHealthy ${pdb.desiredHealthy}` : '',
    pdb.expectedPods !== undefined ? `expectedPods ${pdb.expectedPods}` : '',
  ].filter((s) => s !== '');
  const blamed = blockedEvents(f, held, (m) => {
    const named = pdbsBlamedIn(m);
    return named !== undefined && !named.multiple && named.pdbs.includes(key);
  });
  // Under IfHealthyBudget (the default), a running pod that is not Ready may be evicted only while the budget has
  // room (Kubernetes' eviction API; DOMAIN.md §2.7): unready pods under a spent budget stay put.
  const unhealthyHeld =
    pdb.unhealthyPodEvictionPolicy === 'AlwaysAllow'
      ? []
      : held.flatMap((h) => (h.pod !== undefined && h.pod.notReady === true ? [h.pod] : []));
  return {
    code: 'STALL-PDB',
    nodePool: pool.name,
    message: `PDB "${key}" prevents pod evictions on ${plural(nodes.size, 'drifted node')} (NodePool ${pool.name})`,
    evidence: [
      `PDB ${key}: disruptionsAllowed ${pdb.disruptionsAllowed}${status.length > 0 ? ` (${status.join(', ')})` : ''}`,
      ...listed(held.map(heldText), 'pods'),
      ...quotes([...blamed, ...drainEvents(f, held)], f.now),
    ],
    next:
      unhealthyHeld.length > 0
        ? `Its pods on drifted nodes are unhealthy (${unhealthyHeld.length} not Ready, e.g. ${unhealthyHeld[0]!.namespace}/${unhealthyHeld[0]!.name}) and PDB ${key} has unhealthyPodEvictionPolicy ${pdb.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget (the default)'}: the eviction API refuses such pods while the budget is spent, so they never leave (a bad AMI's crash-looping pods block its own rollback this way). Fix the pods, or let unhealthy pods be evicted: kubectl patch pdb ${pdb.name} -n ${pdb.namespace} --type merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`
        : `Let PDB ${key} allow an eviction: scale out what it protects or relax minAvailable/maxUnavailable (kubectl get pdb ${pdb.name} -n ${pdb.namespace} -o yaml)`,
  };
}

function multiplePdbBlocker(f: Facts, pool: Pool, multiple: Array<Held & { pdbs: PdbView[] }>): Blocker {
  const blamed = blockedEvents(f, multiple, (m) => pdbsBlamedIn(m)?.multiple === true);
  return {
    code: 'STALL-PDB',
    nodePool: pool.name,
    message: `${plural(multiple.length, 'pod')} on drifted nodes ${multiple.length === 1 ? 'is' : 'are'} covered by several PDBs: eviction does not support multiple PDBs (NodePool ${pool.name})`,
    evidence: [
      ...listed(
        multiple.map((m) => `${heldText(m)}: PDBs ${m.pdbs.map(pdbKey).join(', ')}`),
        'pods',
      ),
      ...quotes([...blamed, ...drainEvents(f, multiple)], f.now),
    ],
    next: `Leave each pod under one PDB: kubectl get pdb -n ${multiple[0]!.pod!.namespace} -o wide`,
  };
}

const NOT_ALL_PODS = /not all pods would schedule, /i;
// `<namespace>/<pod> => ` at the start or after a space: the error texts name `nodeclaim/x` and `node/x` too, but
// never followed by " => ".
const POD_ERROR = /(?<=^|\s)([a-z0-9][-a-z0-9.]*)\/([a-z0-9][-a-z0-9.]*) => /g;
const OTHERS = /\s*and (\d+) other\(s\)\s*$/;
const UNINITIALIZED = /would schedule against (a non-initialized node|uninitialized )/i;

export interface PodSchedulingErrors {
  pods: Array<{ namespace: string; name: string; reason: string }>;
  /** Pods Karpenter left out of the message (it names five). */
  others: number;
}

/**
 * Karpenter's `Results.NonPendingPodSchedulingErrors()`, capitalised (scheduling/scheduler.go):
 * `Not all pods would schedule, <ns>/<pod> => <error> ` for up to five pods, then ` and N other(s)`.
 * Undefined for any other message.
 */
export function podSchedulingErrors(message: string): PodSchedulingErrors | undefined {
  const start = NOT_ALL_PODS.exec(message);
  if (start == null) return undefined;
  let rest = message.slice(start.index + start[0].length);
  const others = OTHERS.exec(rest);
  if (others != null) rest = rest.slice(0, others.index);
  const matches = [...rest.matchAll(POD_ERROR)];
  const pods = matches.map((m, i) => ({
    namespace: m[1]!,
    name: m[2]!,
    reason: rest.slice(m.index + m[0].length, matches[i + 1]?.index ?? rest.length).trim(),
  }));
  return { pods, others: others == null ? 0 : Number(others[1]) };
}

interface Unschedulable {
  claim: NodeClaimView;
  node: NodeView;
  pods: Map<string, { namespace: string; name: string; reason: string }>;
  others: number;
  events: EventView[];
}

// Karpenter publishes "Not all pods would schedule" on the Node and the NodeClaim of a drifted candidate it skipped
// and repeats it every pass; a candidate it has since picked (disrupting, deleting) is no longer held by it.
function unschedulableHeld(f: Facts, pool: Pool): Unschedulable[] {
  const out: Unschedulable[] = [];
  for (const claim of pool.old) {
    const node = nodeOf(f.snapshot, claim);
    if (node === undefined || claim.deleting || node.deleting) continue;
    if (!isTrue(claim.conditions, 'Drifted') || isDisrupting(claim, node)) continue;
    const events = f.events
      .filter(
        (e) =>
          e.reason === 'DisruptionBlocked' &&
          ((e.involvedKind === 'Node' && e.involvedName === node.name) ||
            (e.involvedKind === 'NodeClaim' && e.involvedName === claim.name)) &&
          NOT_ALL_PODS.test(e.message),
      )
      .sort((a, b) => inOrder(eventTime(a), eventTime(b)));
    if (events.length === 0) continue;
    const held: Unschedulable = { claim, node, pods: new Map(), others: 0, events };
    // Oldest first, so the newest reason for a pod wins.
    for (const e of events) {
      const parsed = podSchedulingErrors(e.message);
      for (const p of parsed?.pods ?? []) held.pods.set(`${p.namespace}/${p.name}`, p);
      held.others = parsed?.others ?? 0;
    }
    out.push(held);
  }
  return out;
}

function newestPerObject(events: EventView[]): EventView[] {
  const newest = new Map<string, EventView>();
  for (const e of events) newest.set(`${e.involvedKind ?? ''}/${e.involvedName ?? ''}`, e); // oldest first
  return [...newest.values()];
}

function unschedulableBlocker(f: Facts, pool: Pool, held: Unschedulable[]): Blocker {
  const pods = held.flatMap((h) => [...h.pods.values()].map((p) => ({ ...p, h })));
  const where = (h: Unschedulable) => `node ${h.node.name} (NodeClaim ${h.claim.name})`;
  const pinned = pods.find((p) => p.reason.includes('kubernetes.io/hostname'));
  const first = pinned ?? pods.find((p) => !UNINITIALIZED.test(p.reason));
  const others = pods.length > 1 ? ' (likewise for the others listed)' : '';
  const evidence = [
    ...listed(
      pods.map((p) => `pod ${p.namespace}/${p.name} on ${where(p.h)} would not schedule: ${p.reason}`),
      'pods',
    ),
    ...held.flatMap((h) =>
      h.others > 0 ? [`… and ${plural(h.others, 'more pod')} on ${where(h)} that Karpenter does not name`] : [],
    ),
    ...held.flatMap((h) => (h.pods.size === 0 ? [`${where(h)} is skipped by the scheduling simulation`] : [])),
    // The newest event per object: each pass's message differs (a new hostname-placeholder-NNNN), so older ones
    // would only repeat it.
    ...quotes(
      held.flatMap((h) => newestPerObject(h.events)),
      f.now,
    ),
  ];
  let next: string;
  if (pinned !== undefined) {
    next = `Pod ${pinned.namespace}/${pinned.name} is pinned to node ${pinned.h.node.name} by kubernetes.io/hostname, which no other node has and no new node can have: if nothing owns it (a debugging or agent pod), delete it: kubectl delete pod ${pinned.name} -n ${pinned.namespace}; if a controller owns it, take the hostname out of its nodeSelector/affinity${others}. ${TGP_DOES_NOT_HELP}`;
  } else if (first !== undefined) {
    next = `Let the pods run elsewhere: relax the nodeSelector/affinity of pod ${first.namespace}/${first.name} (kubectl get pod ${first.name} -n ${first.namespace} -o yaml), or allow what it asks for in a NodePool's spec.template labels or spec.template.spec.requirements (kubectl edit nodepool ${pool.name})${others}. ${TGP_DOES_NOT_HELP}`;
  } else if (pods.length > 0) {
    // Karpenter will not count on a node that has not initialized: this passes once the new nodes are up.
    next = `Karpenter waits for new nodes to initialize before it moves pods onto them: kubectl get nodeclaims -o wide (a replacement that never initializes shows as STALL-LAUNCH or STALL-REGISTRATION)`;
  } else {
    next = `kubectl describe node ${held[0]!.node.name} (Karpenter's DisruptionBlocked events name the pods). ${TGP_DOES_NOT_HELP}`;
  }
  return {
    code: 'STALL-UNSCHEDULABLE',
    nodePool: pool.name,
    message: `Not all pods would schedule elsewhere: Karpenter's scheduling simulation holds ${plural(held.length, 'drifted node')} (NodePool ${pool.name})`,
    evidence,
    next,
  };
}
