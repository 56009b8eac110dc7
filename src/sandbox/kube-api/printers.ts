import { humanDuration } from '../../text/words.js';
import { isRecord } from './field-set.js';
import type { KubeObject } from './types.js';

export { humanDuration };

// The server-side printers of the core kinds the sandbox serves, ported from kubernetes pkg/printers/internalversion/
// printers.go. kube-apiserver always prints them Wide (printerstorage.TableConvertor), and kubectl hides the
// priority > 0 columns itself unless asked for `-o wide`.

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: KubeObject, now: Date): unknown[];
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
}

// metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"].
export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
export const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const column = (
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): TableColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});
export const nameColumn = column('Name', 'string', NAME_DESCRIPTION, 0, 'name');
export const ageColumn = column('Age', 'string', CREATION_TIMESTAMP_DESCRIPTION);


/** printers.go `translateTimestampSince`. */
export function age(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  return humanDuration(now.getTime() - Date.parse(timestamp));
}

export const get = (obj: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (isRecord(v) ? v[k] : undefined), obj);
export const str = (value: unknown): string => (typeof value === 'string' ? value : '');
export const list = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const intOrString = (value: unknown): string =>
  typeof value === 'number' || typeof value === 'string' ? String(value) : 'N/A';

const node: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn,
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
    column('External-IP', 'string', 'List of addresses reachable to the node.', 1),
    column(
      'OS-Image',
      'string',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      1,
    ),
    column(
      'Kernel-Version',
      'string',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    column(
      'Container-Runtime',
      'string',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      1,
    ),
  ],
  cells(obj, now) {
    const ready = list(get(obj, 'status', 'conditions')).find((c) => c.type === 'Ready');
    const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
    if (get(obj, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
    const roles = new Set<string>();
    for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
      if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length)
        roles.add(key.slice(24));
      else if (key === 'kubernetes.io/role' && value !== '') roles.add(value);
    }
    const address = (type: string) =>
      str(list(get(obj, 'status', 'addresses')).find((a) => a.type === type)?.address) || '<none>';
    const info = (field: string) => str(get(obj, 'status', 'nodeInfo', field)) || '<unknown>';
    return [
      obj.metadata.name,
      status.join(','),
      [...roles].sort().join(',') || '<none>',
      age(obj.metadata.creationTimestamp, now),
      str(get(obj, 'status', 'nodeInfo', 'kubeletVersion')),
      address('InternalIP'),
      address('ExternalIP'),
      info('osImage'),
      info('kernelVersion'),
      info('containerRuntimeVersion'),
    ];
  },
};

const namespace: Printer = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
  cells: (obj, now) => [obj.metadata.name, str(get(obj, 'status', 'phase')), age(obj.metadata.creationTimestamp, now)],
};

const podDisruptionBudget: Printer = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata.name,
    intOrString(get(obj, 'spec', 'minAvailable')),
    intOrString(get(obj, 'spec', 'maxUnavailable')),
    Number(get(obj, 'status', 'disruptionsAllowed') ?? 0),
    age(obj.metadata.creationTimestamp, now),
  ],
};

const event: Printer = {
  columns: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column(
      'Reason',
      'string',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    column('Object', 'string', 'The object that this event is about.'),
    column(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      1,
    ),
    column(
      'Source',
      'string',
      'The component reporting this event. Should be a short machine understandable string.',
      1,
    ),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column(
      'First Seen',
      'string',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      1,
    ),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    column('Name', 'string', NAME_DESCRIPTION, 1, 'name'),
  ],
  cells(obj, now) {
    const first = obj.firstTimestamp ? age(obj.firstTimestamp, now) : age(obj.eventTime, now);
    const series = isRecord(obj.series) ? obj.series : undefined;
    const last = series ? age(series.lastObservedTime, now) : obj.lastTimestamp ? age(obj.lastTimestamp, now) : first;
    const count = series ? Number(series.count ?? 0) : Number(obj.count ?? 0) || 1;
    const kind = str(get(obj, 'involvedObject', 'kind')).toLowerCase();
    const involved = str(get(obj, 'involvedObject', 'name'));
    const component = str(get(obj, 'source', 'component')) || str(obj.reportingComponent);
    const host = str(get(obj, 'source', 'host')) || str(obj.reportingInstance);
    return [
      last,
      str(obj.type),
      str(obj.reason),
      involved ? `${kind}/${involved}` : kind,
      str(get(obj, 'involvedObject', 'fieldPath')),
      host ? `${component}, ${host}` : component,
      str(obj.message).trim(),
      first,
      count,
      obj.metadata.name,
    ];
  },
};

export const corePrinters: Record<string, Printer> = {
  nodes: node,
  namespaces: namespace,
  poddisruptionbudgets: podDisruptionBudget,
  events: event,
};
