// `npm run build`: esbuild bundles the CLI and its dependencies into dist/, split at every dynamic import(), so a
// command loads only the code it runs. `--help` is dist/main.js and commander's chunk; `status` adds the Kubernetes
// client, and only the parts of @kubernetes/client-node and the AWS SDK that karp-drift imports (their package
// indexes load every generated API client: about half a second on a small machine). Type checking stays with
// `npm run typecheck` (tsc). Files the code reads at run time (package.json, templates/, scenarios/, vendor/) are
// found from the package root (src/package-root.ts), wherever a module lands in a chunk.
import { build } from 'esbuild';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Besides the CLI, the sandbox modules that bench/ drives in process keep their dist/ paths.
const ENTRIES = [
  'src/main.ts',
  'src/sandbox/sandbox.ts',
  'src/sandbox/karpenter/clock.ts',
  'src/sandbox/scenarios/schema.ts',
  'src/sandbox/kube-api/crds.ts',
  'src/sandbox/kube-api/kubeconfig.ts',
  'src/sandbox/kube-api/server.ts',
];

// @kubernetes/client-node declares no "sideEffects", so a bundler keeps every module its index reaches: all ~70
// generated API classes and ~2,500 models (each model's static type map is a property assignment, a side effect),
// ws, tar-fs... Its modules are side-effect free in the package.json sense (none is imported for its side effects
// alone), so they are marked so: a module none of whose exports is used is left out, the rest are tree-shaken as
// usual. node-fetch v2 imports whatwg-url (and tr46's 300 kB table) only as a fallback for a Node without a global
// URL (`Url.URL || whatwgUrl.URL`): on Node 20+ that fallback is never read.
const trimDependencies = {
  name: 'trim-dependencies',
  setup(b) {
    b.onResolve({ filter: /^@kubernetes\/client-node$/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      return { ...resolved, sideEffects: false };
    });
    // KubeConfig (config.js) takes two names from the generated code's index, which re-exports every model: the
    // files an import reaches share a chunk, so `status` would load them all. Those two names, from their own files.
    b.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      /[/\\]client-node[/\\]dist[/\\]config\.js$/.test(args.importer) ? { path: resolve(dirname(args.importer), 'gen'), namespace: 'kube-config-gen' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'kube-config-gen' }, (args) => ({
      contents: `export { createConfiguration } from ${JSON.stringify(`${args.path}/configuration.js`)};\nexport { ServerConfiguration } from ${JSON.stringify(`${args.path}/servers.js`)};`,
      resolveDir: args.path,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\./ }, (args) =>
      /[/\\]@kubernetes[/\\]client-node[/\\]dist[/\\]/.test(args.importer) ? { path: resolve(dirname(args.importer), args.path), sideEffects: false } : undefined,
    );
    b.onResolve({ filter: /^whatwg-url$/ }, (args) =>
      /[/\\]node-fetch[/\\]/.test(args.importer) ? { path: 'whatwg-url', namespace: 'node-global-url' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'node-global-url' }, () => ({ contents: 'export default { URL: globalThis.URL };', loader: 'js' }));
  },
};

await rm(`${root}dist`, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // The packages' ES module builds (the AWS SDK's dist-es/): their exports tree-shake, their CommonJS builds do not.
  mainFields: ['module', 'main'],
  // ws's optional native add-ons, which it requires inside a try.
  external: ['bufferutil', 'utf-8-validate'],
  // CommonJS dependencies inside ES module chunks still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __karpDriftRequire } from 'node:module';\nconst require = __karpDriftRequire(import.meta.url);" },
  plugins: [trimDependencies],
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
// bench/ and anyone curious: what went into which chunk (esbuild's analyzer reads it).
await writeFile(`${root}dist/meta.json`, JSON.stringify(result.metafile));
await chmod(`${root}dist/main.js`, 0o755);
