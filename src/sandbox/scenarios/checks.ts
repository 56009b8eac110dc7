// What a scenario's shape cannot say: names that must refer to each other, AMI families that must exist for a
// Kubernetes version and architecture, and fields the chosen Karpenter version does not have. Every problem names
// its field path, so one run lists everything to fix.
import { FAMILIES, familyVersionProblem, variantExists } from '../../ami/families.js';
import type { Scenario } from './shape.js';
import {
  compatibilityProblem,
  karpenterApi,
  parseKarpenterVersion,
  skewProblem,
  type KarpenterApi,
} from './versions.js';

export interface Problem {
  path: string;
  message: string;
}

// The release names each family publishes (src/sandbox/aws/images.ts `releaseOf`).
const RELEASE_FORMATS: Record<string, { pattern: RegExp; example: string }> = {
  al2: { pattern: /^v\d{8}$/, example: 'v20240917' },
  al2023: { pattern: /^v\d{8}$/, example: 'v20240917' },
  bottlerocket: { pattern: /^v?\d+\.\d+\.\d+$/, example: '1.20.4' },
  windows: { pattern: /^\d{4}\.\d{2}\.\d{2}$/, example: '2024.09.17' },
};

export function scenarioProblems(s: Scenario): Problem[] {
  const problems: Problem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });
  const api = karpenterProblems(s, add);

  if (s.timing.registerSeconds[0] > s.timing.registerSeconds[1])
    add('timing.registerSeconds', 'the range must be [low, high]');

  duplicates(
    s.nodeClasses.map((c) => c.name),
    'nodeClasses',
    'nodeClass',
    add,
  );
  s.nodeClasses.forEach((c, i) => nodeClassProblems(s, i, api, add));

  const classes = new Map(s.nodeClasses.map((c) => [c.name, c]));
  const pools = new Map(s.nodePools.map((p) => [p.name, p]));
  duplicates(
    s.nodePools.map((p) => p.name),
    'nodePools',
    'nodePool',
    add,
  );
  const gpuOfClass = new Map<string, boolean>();
  s.nodePools.forEach((p, i) => {
    const at = `nodePools[${i}]`;
    const c = classes.get(p.nodeClass);
    if (!c) add(`${at}.nodeClass`, `no nodeClass named "${p.nodeClass}"`);
    p.arch.forEach((arch, j) => {
      if (p.arch.indexOf(arch) !== j) add(`${at}.arch[${j}]`, `"${arch}" is listed twice`);
      else if (c && !variantExists(c.family, arch, 'standard'))
        add(`${at}.arch[${j}]`, `${c.family} has no ${arch} AMIs`);
    });
    if (p.gpu && p.arch.some((a) => a !== 'amd64'))
      add(`${at}.arch`, 'GPU pools run g5.xlarge, an amd64 instance type: arch must be [amd64]');
    if (p.gpu && c && !variantExists(c.family, 'amd64', 'nvidia')) add(`${at}.gpu`, `${c.family} has no nvidia AMIs`);
    const classGpu = gpuOfClass.get(p.nodeClass);
    if (c && classGpu !== undefined && classGpu !== p.gpu) {
      // DOMAIN.md §1.2: an id term carries only the architecture, so a class cannot hold both variants.
      const other = classGpu ? 'GPU' : 'non-GPU';
      add(`${at}.gpu`, `nodeClass "${c.name}" also serves ${other} pools; give GPU pools their own EC2NodeClass`);
    } else gpuOfClass.set(p.nodeClass, p.gpu);
    if (p.doNotDisruptNodes > p.nodes) add(`${at}.doNotDisruptNodes`, `more than the pool's ${p.nodes} nodes`);
    if (p.terminationGracePeriod !== undefined && api === 'v1beta1')
      add(`${at}.terminationGracePeriod`, `needs Karpenter 1.0 or later (karpenterVersion is ${s.karpenterVersion})`);
    const version = parseKarpenterVersion(s.karpenterVersion);
    if (p.budgets && version && version.major === 0 && version.minor < 34)
      add(
        `${at}.budgets`,
        `disruption budgets need Karpenter 0.34 or later (karpenterVersion is ${s.karpenterVersion})`,
      );
    p.budgets?.forEach((b, j) => {
      if ((b.schedule === undefined) !== (b.duration === undefined))
        add(`${at}.budgets[${j}]`, 'schedule and duration must be set together');
      if (b.reasons && api === 'v1beta1')
        add(`${at}.budgets[${j}].reasons`, `needs Karpenter 1.0 or later (karpenterVersion is ${s.karpenterVersion})`);
    });
  });

  const workloadKeys = new Set<string>();
  s.workloads.forEach((w, i) => {
    const at = `workloads[${i}]`;
    const key = `${w.namespace}/${w.name}`;
    if (workloadKeys.has(key)) add(`${at}.name`, `duplicate workload "${w.name}" in namespace "${w.namespace}"`);
    workloadKeys.add(key);
    const pool = pools.get(w.nodePool);
    if (!pool) add(`${at}.nodePool`, `no nodePool named "${w.nodePool}"`);
    if (w.daemonSet && w.replicas !== undefined)
      add(`${at}.replicas`, 'a DaemonSet runs one pod per node of its pool: remove replicas');
    if (!w.daemonSet && w.replicas === undefined) add(`${at}.replicas`, 'required unless daemonSet is true');
    if (w.pinnedToNode && w.daemonSet)
      add(`${at}.pinnedToNode`, 'pinned pods are bare pods, without a controller: not a DaemonSet');
    if (w.pinnedToNode && w.nodeSelector?.['kubernetes.io/hostname'] !== undefined)
      add(`${at}.nodeSelector`, "pinnedToNode sets kubernetes.io/hostname to each pod's node");
    if (pool && pool.nodes === 0 && (w.replicas ?? 0) > 0)
      add(`${at}.nodePool`, `nodePool "${pool.name}" has no nodes to run ${w.replicas} pods on`);
    if (w.pdb && (w.pdb.maxUnavailable === undefined) === (w.pdb.minAvailable === undefined))
      add(`${at}.pdb`, 'set exactly one of maxUnavailable and minAvailable');
  });

  const poolRef = (path: string, name: string | undefined) => {
    if (name !== undefined && !pools.has(name)) add(path, `no nodePool named "${name}"`);
  };
  poolRef('faults.launchFailures.nodePool', s.faults.launchFailures?.nodePool);
  poolRef('faults.neverRegisters.nodePool', s.faults.neverRegisters?.nodePool);
  const amiNotFound = s.faults.amiNotFound?.nodeClass;
  if (amiNotFound !== undefined && !classes.has(amiNotFound))
    add('faults.amiNotFound.nodeClass', `no nodeClass named "${amiNotFound}"`);
  badAmiProblems(s, add);
  gitopsProblems(s, add);
  return problems;
}

// One GitOps tool syncs the scenario's objects (sandbox/gitops/): an object another tool applied would have no
// Application or Kustomization to name, and none would sync it.
function gitopsProblems(s: Scenario, add: (path: string, message: string) => void): void {
  const objects = [
    ...s.nodeClasses.map((c, i) => ({ at: `nodeClasses[${i}].fieldManager`, manager: c.fieldManager })),
    ...s.nodePools.map((p, i) => ({ at: `nodePools[${i}].fieldManager`, manager: p.fieldManager })),
  ];
  const tool = s.gitops?.tool;
  for (const o of objects) {
    if (o.manager === 'kubectl' || tool === undefined || o.manager === tool) continue;
    add(o.at, `gitops.tool is ${tool}: an object ${o.manager} applies would be synced by nothing; use ${tool} or kubectl`);
  }
  if (s.gitops !== undefined && s.gitops.dir === undefined && !objects.some((o) => o.manager === s.gitops?.tool))
    add('gitops.dir', `required when no nodeClass or nodePool has fieldManager: ${s.gitops.tool} (the objects to write into a directory of manifests)`);
}

// The release itself is looked up in the AMI catalog when the sandbox starts (scenarios/bad-ami.ts): its names are
// seeded, so only its shape can be checked here.
function badAmiProblems(s: Scenario, add: (path: string, message: string) => void): void {
  const fault = s.faults.badAmi;
  if (!fault) return;
  const at = 'faults.badAmi';
  const classes = new Map(s.nodeClasses.map((c) => [c.name, c]));
  fault.nodeClasses?.forEach((name, i) => {
    if (fault.nodeClasses?.indexOf(name) !== i) add(`${at}.nodeClasses[${i}]`, `"${name}" is listed twice`);
    else if (!classes.has(name)) add(`${at}.nodeClasses[${i}]`, `no nodeClass named "${name}"`);
  });
  if (fault.afterSeconds !== undefined && fault.symptom !== 'not-ready')
    add(`${at}.afterSeconds`, `only the not-ready symptom waits: remove it for ${fault.symptom}`);
  const affected = (fault.nodeClasses ?? [...classes.keys()]).flatMap((name) => classes.get(name) ?? []);
  for (const family of new Set(affected.map((c) => c.family))) {
    // The bad release is one of the control plane's minor: what the nodes are upgraded to.
    const unavailable = familyVersionProblem(family, s.controlPlaneVersion);
    if (unavailable) add(at, `the control plane is on ${s.controlPlaneVersion}: ${unavailable}`);
    const format = RELEASE_FORMATS[family.startsWith('windows') ? 'windows' : family];
    if (fault.release !== undefined && format && !format.pattern.test(fault.release))
      add(`${at}.release`, `${family} releases are named like "${format.example}"`);
  }
}

function karpenterProblems(s: Scenario, add: (path: string, message: string) => void): KarpenterApi | undefined {
  const version = parseKarpenterVersion(s.karpenterVersion);
  if (!version) {
    add('karpenterVersion', `"${s.karpenterVersion}" is not a version such as "1.14.1"`);
    return undefined;
  }
  const api = karpenterApi(version);
  if (!api) {
    add(
      'karpenterVersion',
      `Karpenter ${s.karpenterVersion} predates NodePools and NodeClaims; the sandbox runs 0.32–0.37 (v1beta1) and 1.x (v1)`,
    );
    return undefined;
  }
  const incompatible = compatibilityProblem(version, s.controlPlaneVersion);
  if (incompatible) add('karpenterVersion', incompatible);
  return api;
}

function nodeClassProblems(
  s: Scenario,
  i: number,
  api: KarpenterApi | undefined,
  add: (path: string, message: string) => void,
): void {
  const c = s.nodeClasses[i];
  if (!c) return;
  const at = `nodeClasses[${i}]`;
  const unavailable =
    familyVersionProblem(c.family, c.kubernetesVersion) ?? skewProblem(c.kubernetesVersion, s.controlPlaneVersion);
  if (unavailable) add(`${at}.kubernetesVersion`, unavailable);
  const windows = c.family.startsWith('windows');
  const format = RELEASE_FORMATS[windows ? 'windows' : c.family];
  if (c.release !== undefined && c.release !== 'latest' && format && !format.pattern.test(c.release))
    add(`${at}.release`, `${c.family} releases are named like "${format.example}" (or use latest)`);
  if (c.pin !== 'alias') return;
  if (api === 'v1beta1')
    add(`${at}.pin`, `alias terms need Karpenter 1.0 or later (karpenterVersion is ${s.karpenterVersion})`);
  if (!FAMILIES[c.family].pinnable && c.release !== undefined && c.release !== 'latest')
    add(`${at}.release`, `${c.family} aliases cannot be pinned: only ${c.family}@latest exists`);
  // Karpenter resolves an alias for the control plane's version, not the nodes' (DOMAIN.md §2.3).
  const aliasProblem = familyVersionProblem(c.family, s.controlPlaneVersion);
  if (aliasProblem)
    add(`${at}.pin`, `the alias resolves against the control plane (${s.controlPlaneVersion}): ${aliasProblem}`);
}

function duplicates(names: string[], list: string, kind: string, add: (path: string, message: string) => void): void {
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) add(`${list}[${i}].name`, `duplicate ${kind} name "${n}"`);
  });
}
