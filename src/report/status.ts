// `karp-drift status`: where each NodePool stands now, from one inventory read. The target is what each
// EC2NodeClass resolved (STYLE.md: "still on the old AMI" means imageID not in status.amis) and the kubelet
// minor of the control plane; the blockers are the rollout's (rollout/stalls.ts) minus the ones that need to
// know when a change was applied.
import type { ClusterIdentity } from '../apis/cluster-identity.js';
import type { AmiSelectorTerm, DiagnosisReads, Inventory, KarpenterApi } from '../karpenter/views.js';
import { inventorySnapshot, type Snapshot } from '../rollout/snapshot.js';
import { diagnose, type Blocker } from '../rollout/stalls.js';
import { amisCondition } from '../rollout/readiness.js';
import { amiSelectorTermText } from '../text/words.js';
import { claimsByNodePool, nodeOf, rolloutProgress, type RolloutScope } from '../rollout/track.js';
import { blockerLines } from './progress.js';
import { driftHolds, driftHoldsJson, driftHoldsLines, type DriftHold } from './status-holds.js';
import { fitColumns } from '../text/table.js';
import { fitLine, fitWrapped, wrapText, type Screen } from './screen.js';
import type { RunLock } from '../apis/hold-state.js';
import { inOrder } from '../text/order.js';

export interface NodePoolStatus {
  name: string;
  nodeClass: string;
  /** NodeClaims of the NodePool not being deleted. */
  nodes: number;
  /**
   * Those whose status.imageID is in the EC2NodeClass's status.amis, Initialized: up to date with what the class
   * selects now, as kubectl's UP-TO-DATE counts replicas on the current template. Not "on target": that word is
   * plan's and upgrade's, for the AMIs a `--to` pins, and before an upgrade the two differ (3/3 up to date, 0 on the
   * 1.30 AMIs).
   */
  upToDate: number;
  /** Their Nodes' nodeInfo.kubeletVersion → count (NodeClaims not yet registered have none). */
  byKubeletVersion: Record<string, number>;
  /** Their status.imageID → count. */
  byImage: Record<string, number>;
  drifted: number;
  disrupting: number;
  launching: number;
  /** The EC2NodeClass's amiSelectorTerms: what it pins. */
  amiSelectorTerms: AmiSelectorTerm[];
  /** Its own blockers and its EC2NodeClass's. */
  blockers: Blocker[];
}

export interface ClusterStatus {
  kubernetesVersion: string;
  karpenterApi: KarpenterApi;
  nodePools: NodePoolStatus[];
  /** What karp-drift holds on those NodePools (pause, or a staged upgrade that stopped). */
  holds: DriftHold[];
  /** When it was read: the holds' ages count to it. */
  at: Date;
}

/** What the status reads besides the watched kinds (NodeClaims, Nodes, EC2NodeClasses, events): listed, not watched. */
export type StatusContext = DiagnosisReads &
  Pick<Inventory, 'karpenterApi'> & {
    controlPlane: Pick<Inventory['controlPlane'], 'minor'>;
    /** The cluster lock as read (absent: not read): whether a live run paces karp-drift's holds. */
    lock?: RunLock;
  };

export function clusterStatus(inventory: Inventory, now: Date): ClusterStatus {
  return snapshotStatus(inventorySnapshot(inventory), inventory, now);
}

/** The status of a snapshot: one read (`status`) or one kept up to date by watches (`status --watch`). */
export function snapshotStatus(snapshot: Snapshot, inventory: StatusContext, now: Date): ClusterStatus {
  const pools = [...inventory.nodePools].sort((a, b) => inOrder(a.name, b.name));
  const targetImageIds: Record<string, string[]> = {};
  for (const c of snapshot.nodeClasses.values()) {
    // v0.32–v0.36 write no condition on an EC2NodeClass: status.amis is what it selects.
    const condition = amisCondition(c);
    targetImageIds[c.name] = condition === undefined || condition.status === 'True' ? c.statusAmis.map((a) => a.id) : [];
  }
  // startedAt = now: with no change applied, "not drifting N minutes after the change" has no meaning.
  const scope: RolloutScope = {
    nodePools: pools.map((p) => ({ name: p.name, nodeClass: p.nodeClass })),
    targetImageIds,
    targetMinor: inventory.controlPlane.minor,
    startedAt: now,
  };
  const progress = rolloutProgress(snapshot, scope, now);
  const blockers = diagnose(
    snapshot,
    {
      scope,
      nodePools: inventory.nodePools,
      pdbs: inventory.pdbs,
      pods: inventory.pods,
      karpenterApi: inventory.karpenterApi,
      ...(inventory.lock !== undefined ? { lock: inventory.lock } : {}),
    },
    now,
  );
  const byPool = claimsByNodePool(snapshot);
  return {
    kubernetesVersion: inventory.controlPlane.minor,
    karpenterApi: inventory.karpenterApi,
    nodePools: progress.nodePools.map((p) => {
      const byKubeletVersion: Record<string, number> = {};
      const byImage: Record<string, number> = {};
      for (const claim of byPool.get(p.name) ?? []) {
        if (claim.deleting) continue;
        const kubelet = nodeOf(snapshot, claim)?.kubeletVersion;
        if (kubelet !== undefined) byKubeletVersion[kubelet] = (byKubeletVersion[kubelet] ?? 0) + 1;
        if (claim.imageId !== undefined) byImage[claim.imageId] = (byImage[claim.imageId] ?? 0) + 1;
      }
      return {
        name: p.name,
        nodeClass: p.nodeClass,
        nodes: p.total,
        upToDate: p.onTarget,
        byKubeletVersion: sorted(byKubeletVersion),
        byImage: sorted(byImage),
        drifted: p.drifted,
        disrupting: p.disrupting,
        launching: p.launching,
        amiSelectorTerms: snapshot.nodeClasses.get(p.nodeClass)?.amiSelectorTerms ?? [],
        blockers: blockers.filter(
          (b) => b.nodePool === p.name || (b.nodePool === undefined && b.nodeClass === p.nodeClass),
        ),
      };
    }),
    holds: driftHolds(inventory.nodePools, snapshot.nodes.values(), now, inventory.lock),
    at: now,
  };
}

function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => inOrder(a, b)));
}

const counted = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, n]) => `${k}=${n}`)
    .join(',') || '<none>';

// The default columns fit 80 columns mid-rollout; the per-version and per-AMI counts grow with every version a
// NodePool runs (two AMI IDs and two kubelet versions are over 100 characters), so they are `-o wide`'s, as kubectl
// keeps NOMINATED NODE and READINESS GATES for `get pods -o wide`.
const COLUMNS: Array<{ header: string; wide?: true; cell: (p: NodePoolStatus) => string }> = [
  { header: 'NODEPOOL', cell: (p) => p.name },
  { header: 'NODECLASS', cell: (p) => p.nodeClass },
  { header: 'NODES', cell: (p) => String(p.nodes) },
  { header: 'UP-TO-DATE', cell: (p) => String(p.upToDate) },
  { header: 'DRIFTED', cell: (p) => String(p.drifted) },
  { header: 'DISRUPTING', cell: (p) => String(p.disrupting) },
  { header: 'LAUNCHING', cell: (p) => String(p.launching) },
  { header: 'KUBELET', wide: true, cell: (p) => counted(p.byKubeletVersion) },
  { header: 'AMI', wide: true, cell: (p) => counted(p.byImage) },
  {
    header: 'AMI-SELECTOR',
    wide: true,
    cell: (p) => p.amiSelectorTerms.map(amiSelectorTermText).join(';') || '<none>',
  },
];

/**
 * A kubectl-style table (three spaces between columns), then karp-drift's own holds, then each blocker once, however
 * many NodePools it holds. Sections are a blank line apart.
 */
/**
 * `status` printed once. On a terminal `columns` wide, its sentences (a blocker, its evidence, a `next:`, the holds'
 * footer) are wrapped at spaces rather than broken mid-word by the terminal, nothing cut; the table is fitted to the
 * width too, except with `-o wide`, which asks for every column whole (as kubectl's, it may be wider than the screen).
 */
export function statusTable(status: ClusterStatus, options: { wide?: boolean } = {}, columns = Infinity): string {
  return statusLines(status, options, columns, { fitTable: options.wide !== true, cutEvidence: false })
    .flat()
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * `status --watch`'s frame on a screen: the same sections, the tables fitted to its width, a blocker's evidence cut
 * and every other line wrapped (a `next:` command is never cut), then cut to its height between whole lines.
 */
export function statusFrame(status: ClusterStatus, screen: Screen, options: { wide?: boolean } = {}): string[] {
  return fitWrapped(
    statusLines(status, options, screen.columns),
    screen,
    (n) => `… ${n} more lines: a taller terminal shows them, as does status without --watch`,
  );
}

/**
 * The status's lines, each as the rows it takes on a screen `columns` wide (unbounded: one row each). A frame
 * (`--watch`) fits its table and cuts evidence, to keep room for what to do next; a print may do neither.
 */
function statusLines(
  status: ClusterStatus,
  options: { wide?: boolean },
  columns = Infinity,
  fit: { fitTable: boolean; cutEvidence: boolean } = { fitTable: true, cutEvidence: true },
): string[][] {
  const shown = COLUMNS.filter((c) => c.wide !== true || options.wide === true);
  const table = fitColumns(
    shown.map((c) => c.header),
    status.nodePools.map((p) => shown.map((c) => c.cell(p))),
    fit.fitTable ? columns : Infinity,
  ).map((l) => [l]);
  const blockers = [...new Set(status.nodePools.flatMap((p) => p.blockers))].map((b) => {
    const [headline, ...evidence] = blockerLines(b);
    const next = evidence.pop()!;
    // Evidence is data, as a table's cells are: one row each, cut, so the frame keeps room for what to do next.
    const evidenceRows = (e: string) => (fit.cutEvidence ? [fitLine(e, columns)] : wrapText(e, columns));
    return [wrapText(headline!, columns), ...evidence.map(evidenceRows), wrapText(next, columns)];
  });
  const holds = driftHoldsLines(status.holds, status.at, columns);
  return [table, ...(holds.length === 0 ? [] : [holds]), ...blockers].flatMap((section, i) => (i === 0 ? section : [[''], ...section]));
}

/** One JSON document, the documented keys in order; `compact` puts it on one line, as `status --watch -o json` streams them (NDJSON). */
export function statusJson(status: ClusterStatus, cluster: ClusterIdentity, compact = false): string {
  const doc = {
    cluster,
    kubernetesVersion: status.kubernetesVersion,
    karpenterApi: status.karpenterApi,
    nodePools: status.nodePools.map((p) => ({
      name: p.name,
      nodeClass: p.nodeClass,
      nodes: p.nodes,
      upToDate: p.upToDate,
      byKubeletVersion: p.byKubeletVersion,
      byImage: p.byImage,
      drifted: p.drifted,
      disrupting: p.disrupting,
      launching: p.launching,
      amiSelectorTerms: p.amiSelectorTerms,
      blockers: p.blockers.map((b) => ({ code: b.code, message: b.message, evidence: b.evidence, next: b.next })),
    })),
    holds: driftHoldsJson(status.holds),
  };
  return compact ? `${JSON.stringify(doc)}\n` : `${JSON.stringify(doc, null, 2)}\n`;
}
