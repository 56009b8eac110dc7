import { age, ageColumn, column, get, list, nameColumn, str, type Printer } from './printers.js';
import type { KubeObject } from './types.js';

// printers.go `printPod`: READY counts ready containers (sidecar init containers included), STATUS is the phase
// refined by the first failing init container or the last container's waiting/terminated reason, RESTARTS adds
// how long ago the last restart was.

const terminalPhases = new Set(['Succeeded', 'Failed']);

function podCells(obj: KubeObject, now: Date): unknown[] {
  const spec = get(obj, 'spec');
  const status = get(obj, 'status');
  const phase = str(get(status, 'phase'));
  let reason = str(get(status, 'reason')) || phase;
  const conditions = list(get(status, 'conditions'));
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const initSpecs = list(get(spec, 'initContainers'));
  const restartable = new Set(initSpecs.filter((c) => c.restartPolicy === 'Always').map((c) => str(c.name)));
  const totalContainers = list(get(spec, 'containers')).length + restartable.size;
  let readyContainers = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let lastSidecarRestart = 0;
  const finishedAt = (s: Record<string, unknown>) =>
    Date.parse(str(get(s, 'lastState', 'terminated', 'finishedAt'))) || 0;

  let initializing = false;
  const initStatuses = list(get(status, 'initContainerStatuses'));
  for (const [i, s] of initStatuses.entries()) {
    const count = Number(s.restartCount ?? 0);
    restarts += count;
    lastRestart = Math.max(lastRestart, finishedAt(s));
    const isSidecar = restartable.has(str(s.name));
    if (isSidecar) {
      sidecarRestarts += count;
      lastSidecarRestart = Math.max(lastSidecarRestart, finishedAt(s));
    }
    const terminated = get(s, 'state', 'terminated');
    const waitingReason = str(get(s, 'state', 'waiting', 'reason'));
    if (terminated && Number(get(terminated, 'exitCode') ?? 0) === 0) continue;
    if (isSidecar && s.started === true) {
      if (s.ready === true) readyContainers++;
      continue;
    }
    if (terminated) reason = `Init:${str(get(terminated, 'reason')) || exitDescription(terminated)}`;
    else if (waitingReason && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  const initialized = conditions.some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    for (const s of list(get(status, 'containerStatuses')).reverse()) {
      restarts += Number(s.restartCount ?? 0);
      lastRestart = Math.max(lastRestart, finishedAt(s));
      const waiting = str(get(s, 'state', 'waiting', 'reason'));
      const terminated = get(s, 'state', 'terminated');
      if (waiting) reason = waiting;
      else if (terminated) reason = str(get(terminated, 'reason')) || exitDescription(terminated);
      else if (s.ready === true && get(s, 'state', 'running') !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }

  if (obj.metadata.deletionTimestamp && str(get(status, 'reason')) === 'NodeLost') reason = 'Unknown';
  else if (obj.metadata.deletionTimestamp && !terminalPhases.has(phase)) reason = 'Terminating';

  const restartsCell =
    restarts !== 0 && lastRestart > 0
      ? `${restarts} (${age(new Date(lastRestart).toISOString(), now)} ago)`
      : String(restarts);
  const gates = list(get(spec, 'readinessGates'));
  const gatesCell = gates.length
    ? `${gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length}/${gates.length}`
    : '<none>';
  return [
    obj.metadata.name,
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    age(obj.metadata.creationTimestamp, now),
    str(get(list(get(status, 'podIPs'))[0], 'ip')) || '<none>',
    str(get(spec, 'nodeName')) || '<none>',
    str(get(status, 'nominatedNodeName')) || '<none>',
    gatesCell,
  ];
}

function exitDescription(terminated: unknown): string {
  const signal = Number(get(terminated, 'signal') ?? 0);
  return signal !== 0 ? `Signal:${signal}` : `ExitCode:${Number(get(terminated, 'exitCode') ?? 0)}`;
}

export const pod: Printer = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn,
    column(
      'IP',
      'string',
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      1,
    ),
    column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    column(
      'Nominated Node',
      'string',
      'nominatedNodeName is set only when this pod preempts other pods on the node.',
      1,
    ),
    column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  cells: podCells,
  conditions(obj) {
    const phase = get(obj, 'status', 'phase');
    if (phase === 'Succeeded')
      return [
        { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
      ];
    if (phase === 'Failed')
      return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};
