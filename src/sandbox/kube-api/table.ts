import { jsonText } from './field-set.js';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';
import { pod } from './pod-printer.js';
import {
  column,
  corePrinters,
  CREATION_TIMESTAMP_DESCRIPTION,
  humanDuration,
  nameColumn,
  NAME_DESCRIPTION,
  type Printer,
  type TableColumnDefinition,
  type TableRowCondition,
} from './printers.js';
import type { KubeObject, PrinterColumn, ResourceInfo } from './types.js';

// Server-side printing: what kube-apiserver answers to `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`
// (kubectl get sends it). Every column comes back, priority > 0 included; kubectl shows those only with `-o wide`
// (its TablePrinter filters on priority). Rows carry the object as PartialObjectMetadata unless `includeObject`
// says Object or None (handlers/response.go `asTable`).

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  includeObject: IncludeObject;
  now: Date;
  /** resourceVersion/continue/remainingItemCount of the list, or the object's resourceVersion for a single get. */
  listMeta?: Table['metadata'];
}

export function toTable(resource: ResourceInfo, objects: readonly KubeObject[], opts: TableOptions): Table {
  const printer = resource.crd
    ? customResourcePrinter(resource.crd.additionalPrinterColumns)
    : (builtinPrinters[resource.resource] ?? defaultPrinter);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { ...(opts.listMeta ?? {}) },
    columnDefinitions: printer.columns,
    rows: objects.map((obj) => {
      const conditions = printer.conditions?.(obj);
      return {
        cells: printer.cells(obj, opts.now),
        ...(conditions ? { conditions } : {}),
        object: rowObject(obj, opts.includeObject),
      };
    }),
  };
}

const builtinPrinters: Record<string, Printer> = { ...corePrinters, pods: pod };

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return null;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

// registry/rest/table.go `defaultTableConvertor`, for kinds without a printer (customresourcedefinitions).
const defaultPrinter: Printer = {
  columns: [nameColumn, column('Created At', 'date', CREATION_TIMESTAMP_DESCRIPTION)],
  cells: (obj) => [
    obj.metadata.name,
    new Date(obj.metadata.creationTimestamp ?? 0).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  ],
};

// apiextensions-apiserver tableconvertor.go: a Name column, then the CRD's columns, or an Age column when it
// declares none (customresource_handler.go `serveDefaultColumnsIfEmpty`).
function customResourcePrinter(declared: readonly PrinterColumn[] | undefined): Printer {
  const columns = declared?.length
    ? declared
    : [
        {
          name: 'Age',
          type: 'date',
          jsonPath: '.metadata.creationTimestamp',
          description: CREATION_TIMESTAMP_DESCRIPTION,
        },
      ];
  const paths = columns.map((c) => parseJsonPath(c.jsonPath));
  return {
    columns: [
      column('Name', 'string', NAME_DESCRIPTION, 0, 'name'),
      ...columns.map((c) =>
        column(
          c.name,
          c.type,
          c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
          c.priority ?? 0,
          c.format ?? '',
        ),
      ),
    ],
    cells: (obj, now) => [
      obj.metadata.name,
      ...columns.map((c, i) => {
        const [first] = evaluateJsonPath(paths[i] ?? [], obj);
        return first === undefined ? null : cellForColumn(c.type, first, now);
      }),
    ],
  };
}

// tableconvertor.go: string columns print the value as JSONPath would, other types keep typed values.
function cellForColumn(type: string, value: unknown, now: Date): unknown {
  if (value == null) return null;
  switch (type) {
    case 'string':
      return jsonText(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const time = Date.parse(value);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now.getTime() - time);
    }
    default:
      return null;
  }
}
