// Node's warnings that are about karp-drift's bundled dependencies, not about anything a user can act on. Node 24
// warns once per process (DEP0169) when `url.parse()` is called from code outside node_modules; @kubernetes/client-node
// sends every request through node-fetch v2, whose Request parses its URL with `url.parse()`, and the bundle
// (dist/chunks) is outside node_modules, so every command that reads the cluster printed
// "(node:123) [DEP0169] DeprecationWarning: `url.parse()` behavior is not standardized …" on Node 24. The URLs it
// parses are the API server's, built by client-node from the kubeconfig. Only that warning is dropped; every other
// warning still prints.
const DROPPED = new Set(['DEP0169']);

/** The code of a warning as process.emitWarning receives it: `(msg, type, code)` or `(msg, { type, code })`. */
function warningCode(warning: unknown, typeOrOptions: unknown, code: unknown): string | undefined {
  const own = warning instanceof Error ? (warning as Error & { code?: unknown }).code : undefined;
  if (typeof own === 'string') return own;
  if (typeof typeOrOptions === 'object' && typeOrOptions != null) {
    const c = (typeOrOptions as { code?: unknown }).code;
    return typeof c === 'string' ? c : undefined;
  }
  return typeof code === 'string' ? code : undefined;
}

export function isDroppedWarning(warning: unknown, typeOrOptions?: unknown, code?: unknown): boolean {
  const c = warningCode(warning, typeOrOptions, code);
  return c !== undefined && DROPPED.has(c);
}

/** Installs the filter on process.emitWarning (once, at the CLI's start). */
export function dropDependencyWarnings(): void {
  const emit = process.emitWarning.bind(process);
  const filtered = (warning: string | Error, ...rest: unknown[]): void => {
    if (isDroppedWarning(warning, rest[0], rest[1])) return;
    Reflect.apply(emit, process, [warning, ...rest]);
  };
  process.emitWarning = filtered;
}
