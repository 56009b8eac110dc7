// The only file in src/manifests that reads files: the bundled templates/ or a user's --templates <dir>.
// The bundled directory is templates/ at the package root (package-root.ts: from src/ in tests, from a bundled chunk
// of dist/ in the built CLI).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAll, YAMLException } from 'js-yaml';
import { UsageError } from '../errors.js';
import { packagePath } from '../package-root.js';
import { issueWords } from '../text/issues.js';
import {
  EC2NODECLASS_API_VERSION,
  NODEPOOL_API_VERSION,
  ec2NodeClassSchema,
  nodePoolSchema,
  schemaIssues,
  type EC2NodeClass,
  type ManifestTemplates,
  type NodePool,
} from './schema.js';

export const BUNDLED_TEMPLATES_DIR = packagePath('templates') + '/';

/** One object per file, under these two names only: no multi-document file, so each file maps to one kind. */
export const TEMPLATE_FILES = { nodeClass: 'ec2nodeclass.yaml', nodePool: 'nodepool.yaml' } as const;

interface TemplateObjects {
  nodeClass: EC2NodeClass;
  nodePool: NodePool;
}

const EXPECTED = {
  nodeClass: { kind: 'EC2NodeClass', apiVersion: EC2NODECLASS_API_VERSION, schema: ec2NodeClassSchema },
  nodePool: { kind: 'NodePool', apiVersion: NODEPOOL_API_VERSION, schema: nodePoolSchema },
} as const;

const LAYOUT = `a templates directory holds exactly two files, ${TEMPLATE_FILES.nodeClass} (one EC2NodeClass) and ${TEMPLATE_FILES.nodePool} (one NodePool)`;

/** Reads and checks the templates; `dir` undefined means the bundled templates/. */
export async function readTemplates(dir?: string): Promise<ManifestTemplates> {
  const root = dir ?? BUNDLED_TEMPLATES_DIR;
  if (dir !== undefined) await requireDirectory(dir);
  const files = { nodeClass: join(root, TEMPLATE_FILES.nodeClass), nodePool: join(root, TEMPLATE_FILES.nodePool) };
  const [nodeClass, nodePool] = await Promise.all([readTemplateFile(files.nodeClass), readTemplateFile(files.nodePool)]);
  return {
    nodeClass: checkTemplate(nodeClass, files.nodeClass, 'nodeClass'),
    nodePool: checkTemplate(nodePool, files.nodePool, 'nodePool'),
    files,
  };
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch((err: unknown) => {
    throw new UsageError(`--templates ${dir}: no such directory`, { cause: err, hint: `${LAYOUT}; start from a copy of ${BUNDLED_TEMPLATES_DIR}` });
  });
  if (!info.isDirectory()) {
    throw new UsageError(`--templates ${dir} is a file, not a directory`, { hint: `${LAYOUT}; start from a copy of ${BUNDLED_TEMPLATES_DIR}` });
  }
}

async function readTemplateFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? String(err)})`;
    throw new UsageError(`template ${file} ${what}`, { cause: err, hint: `${LAYOUT}; start from a copy of ${BUNDLED_TEMPLATES_DIR}` });
  }
}

/** Parses one template file's text into its single object and checks its kind, apiVersion and the fields render uses. */
export function checkTemplate<R extends keyof TemplateObjects>(text: string, file: string, role: R): TemplateObjects[R] {
  const want = EXPECTED[role];
  let docs: unknown[];
  try {
    docs = loadAll(text).filter((d) => d != null);
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const at = err.mark ? `:${err.mark.line + 1}:${err.mark.column + 1}` : '';
    throw new UsageError(`${file}${at}: YAML syntax error: ${err.reason}`, { cause: err, hint: `fix the YAML in ${file}` });
  }
  if (docs.length !== 1) {
    throw new UsageError(`${file} holds ${docs.length} YAML documents; expected exactly one ${want.kind}`, { hint: LAYOUT });
  }
  const doc = docs[0];
  if (typeof doc !== 'object' || doc == null || Array.isArray(doc)) {
    throw new UsageError(`${file} is not a Kubernetes object; expected one ${want.kind} (${want.apiVersion})`, { hint: LAYOUT });
  }
  const { apiVersion, kind } = doc as { apiVersion?: unknown; kind?: unknown };
  if (kind !== want.kind || apiVersion !== want.apiVersion) {
    throw new UsageError(`${file} holds ${describe(apiVersion, kind)}; expected ${want.kind} (${want.apiVersion})`, {
      hint: apiHint(apiVersion, kind, want.kind),
    });
  }
  const parsed = want.schema.safeParse(doc, { error: issueWords });
  if (!parsed.success) {
    throw new UsageError(`${file} is not a valid ${want.kind}: ${schemaIssues(parsed.error).join('; ')}`, { hint: `fix ${file}` });
  }
  // The document itself, not parsed.data: zod rebuilds objects with the schema's keys first, and the output should
  // keep the template's key order. The schemas have no defaults or transforms, so both hold the same values.
  return doc as TemplateObjects[R];
}

function describe(apiVersion: unknown, kind: unknown): string {
  if (typeof kind !== 'string') return 'an object without a kind';
  const article = /^[AEIOU]/.test(kind) ? 'an' : 'a';
  return `${article} ${kind} (${typeof apiVersion === 'string' ? apiVersion : 'no apiVersion'})`;
}

function apiHint(apiVersion: unknown, kind: unknown, wanted: string): string {
  if (kind === wanted && typeof apiVersion === 'string' && apiVersion.endsWith('/v1beta1')) {
    // karp-drift writes the v1 API only; DOMAIN.md §2.9 lists what changed.
    return `${apiVersion} is Karpenter's pre-v1 API; convert the template to v1 (Karpenter docs: upgrading/v1-migration)`;
  }
  return LAYOUT;
}
