// What the CLI's builds share: scripts/build.mjs (dist/, for npm) and scripts/build-action.mjs (action/dist/, the
// GitHub Action's committed bundle).
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';

// @kubernetes/client-node declares no "sideEffects", so a bundler keeps every module its index reaches: all ~70
// generated API classes and ~2,500 models (each model's static type map is a property assignment, a side effect),
// ws, tar-fs... Its modules are side-effect free in the package.json sense (none is imported for its side effects
// alone), so they are marked so: a module none of whose exports is used is left out, the rest are tree-shaken as
// usual. node-fetch v2 imports whatwg-url (and tr46's 300 kB table) only as a fallback for a Node without a global
// URL (`Url.URL || whatwgUrl.URL`): on Node 20+ that fallback is never read.
export const trimDependencies = {
  name: 'trim-dependencies',
  setup(b) {
    // The package's index and the deep imports from src/ (e.g. dist/config.js): resolved by esbuild, marked so.
    b.onResolve({ filter: /^@kubernetes\/client-node(\/dist\/.*)?$/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      return { ...resolved, sideEffects: false };
    });
    // KubeConfig (config.js) takes two names from the generated code's index, which re-exports every model: the
    // files an import reaches share a chunk, so `status` would load them all. Those two names, from their own files.
    b.onResolve({ filter: /^\.\/gen\/index\.js$/ }, (args) =>
      /[/\\]client-node[/\\]dist[/\\]config\.js$/.test(args.importer)
        ? // Relative to the working folder: esbuild hashes a plugin namespace's path as written, so an absolute one
          // would give every checkout other chunk names (the committed action bundle must build the same anywhere).
          {
            path: relative(b.initialOptions.absWorkingDir ?? process.cwd(), resolve(dirname(args.importer), 'gen')),
            namespace: 'kube-config-gen',
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'kube-config-gen' }, (args) => ({
      contents: `export { createConfiguration } from './configuration.js';\nexport { ServerConfiguration } from './servers.js';`,
      resolveDir: resolve(b.initialOptions.absWorkingDir ?? process.cwd(), args.path),
      loader: 'js',
    }));
    // Every module of the package is resolved here, the deep imports from src/ and the relative ones inside it alike.
    // esbuild cannot take a module's type from a plugin's result (evanw/esbuild#2958), so a file that one import
    // reached through esbuild's resolver and another through this plugin got its type from whichever resolved first:
    // `__toESM(x, 1)` in one build and `__toESM(x)` in the next, and the committed action bundle differed between
    // builds of one commit. One way in for every module keeps the output the same build after build.
    const clientNodeDist = /[/\\]@kubernetes[/\\]client-node[/\\]dist[/\\]/;
    b.onResolve({ filter: /^\./ }, (args) =>
      (args.namespace === 'file' && clientNodeDist.test(args.importer)) || args.namespace === 'kube-config-gen'
        ? { path: resolve(args.resolveDir, args.path), sideEffects: false }
        : undefined,
    );
    // commander requires node:child_process at load for executable subcommands (`git-style` separate programs),
    // which karp-drift has none of; on Node 20 loading that built-in costs about 6 ms, a tenth of what `--help` adds
    // to Node's own start. It is loaded on first use instead.
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[/\\]commander[/\\]lib[/\\]command\.js$/.test(args.importer)
        ? { path: 'node:child_process', namespace: 'lazy-child-process' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents:
        "let loaded;\nmodule.exports = new Proxy({}, { get: (_, key) => (loaded ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
    // Modules evaluated on their first call rather than when the chunk that imports them loads: esbuild wraps a module
    // reached by require() in an initializer that runs at that require. Each one below costs `status` and `plan` time
    // on every run for a case most runs never reach (EVALUATED_ON_FIRST_CALL says which).
    for (const { module, importer } of EVALUATED_ON_FIRST_CALL) {
      b.onResolve({ filter: new RegExp(`^${module}$`) }, (args) =>
        importer.test(args.importer)
          ? { path: module, namespace: 'evaluated-on-first-call', pluginData: args.resolveDir }
          : undefined,
      );
    }
    b.onLoad({ filter: /.*/, namespace: 'evaluated-on-first-call' }, (args) => {
      const { exports } = EVALUATED_ON_FIRST_CALL.find((m) => m.module === args.path);
      const load = `let loaded;\nconst load = () => (loaded ??= require(${JSON.stringify(args.path)}));\n`;
      const call = (name) => `(...args) { return new.target ? new (load().${name})(...args) : load().${name}(...args); }`;
      return {
        contents: load + exports.map((name) => (name === 'default' ? `export default function ${call(name)}` : `export function ${name}${call(name)}`)).join('\n'),
        resolveDir: args.pluginData,
        loader: 'js',
      };
    });
    // client-node's `oidc` auth-provider uses openid-client (with oauth4webapi and jose, 170 kB) in two async methods
    // only: imported there, it is a chunk of its own that a kubeconfig without an oidc user never loads. The build
    // fails if the file no longer reads as expected (the import gone, or a use outside an async function).
    b.onLoad({ filter: /[/\\]@kubernetes[/\\]client-node[/\\]dist[/\\]oidc_auth\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const line = "import * as oidc from 'openid-client';";
      if (!text.includes(line)) throw new Error(`${args.path}: no "${line}" to make a dynamic import of`);
      return { contents: text.replace(line, '').replaceAll('oidc.', "(await import('openid-client'))."), loader: 'js' };
    });
    // An AWS SDK client's schemas (dist-es/schemas/schemas_0.js) declare every shape of the service, each an array
    // whose member traits are objects with computed keys (`{ [_xN]: _so }`, `_xN` a module constant naming the
    // trait). esbuild cannot tell that a computed key has no side effects, so it keeps every shape: EC2's 1 MB of
    // them, for the dozen DescribeImages reaches (half of what `plan` loads, on Node 20 most of its start-up beyond
    // the lists). The constants written in as the strings they are, the unused shapes are left out.
    b.onLoad({ filter: /[/\\]@aws-sdk[/\\]client-[a-z0-9-]+[/\\]dist-es[/\\]schemas[/\\]schemas_\d+\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const strings = new Map();
      for (const [, name, value] of text.matchAll(/^const (_\w+) = ("(?:[^"\\\n]|\\.)*");$/gm)) strings.set(name, value);
      return { contents: text.replace(/\[(_\w+)\]:/g, (key, name) => (strings.has(name) ? `[${strings.get(name)}]:` : key)), loader: 'js' };
    });
    // On Node 22 and 24 the first ES module import of node:http costs about 20 ms that require() does not: Node builds
    // the builtin's ES module facade by reading every export, and reading http.WebSocket (with CloseEvent and
    // MessageEvent, getters since Node 22) loads undici, Node's fetch and WebSocket, which nothing here uses. Required
    // instead (the banner's require), its exports are read where they are used. Node 20 has no such getters.
    b.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.namespace === 'required-http' ? { path: 'node:http', external: true } : { path: 'node:http', namespace: 'required-http' },
    );
    b.onLoad({ filter: /.*/, namespace: 'required-http' }, () => ({ contents: "module.exports = require('node:http');", loader: 'js' }));
    b.onResolve({ filter: /^whatwg-url$/ }, (args) =>
      /[/\\]node-fetch[/\\]/.test(args.importer) ? { path: 'whatwg-url', namespace: 'node-global-url' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'node-global-url' }, () => ({
      contents: 'export default { URL: globalThis.URL };',
      loader: 'js',
    }));
  },
};

/**
 * The modules `evaluated-on-first-call` (trimDependencies) gives their importer as functions that evaluate the module
 * on their first call, with the names the importer uses.
 * - string-width builds its Unicode property classes (`new RegExp('^\\p{RGI_Emoji}$', 'v')` and three more) and an
 *   Intl.Segmenter when evaluated: 20–40 ms on Node 20, for tables that are printable ASCII, which text/width.ts
 *   measures without it. cli-truncate (with slice-ansi) likewise: only text wider than a terminal is cut.
 * - client-node's KubeConfig constructs every authenticator it has, and config.js can build a SOCKS agent: their
 *   libraries (jsonpath-plus for the `azure` and `gcp` auth-providers, socks for a `socks5://` proxy-url, about
 *   250 kB with ip-address and smart-buffer) are used only inside those cases, from functions that return at once.
 *   (openid-client, for an `oidc` auth-provider, is used from async methods only: oidc_auth.js imports it where it
 *   uses it, into a chunk of its own; see trimDependencies.)
 */
const EVALUATED_ON_FIRST_CALL = [
  { module: 'string-width', importer: /[/\\]src[/\\]text[/\\]width\.ts$/, exports: ['default'] },
  { module: 'cli-truncate', importer: /[/\\]src[/\\]text[/\\]width\.ts$/, exports: ['default'] },
  { module: 'jsonpath-plus', importer: /[/\\]client-node[/\\]dist[/\\](azure|gcp)_auth\.js$/, exports: ['JSONPath'] },
  { module: 'socks-proxy-agent', importer: /[/\\]client-node[/\\]dist[/\\]config\.js$/, exports: ['SocksProxyAgent'] },
];

/** esbuild options for the CLI, wherever it is written. */
export const cliBuildOptions = {
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
  banner: {
    js: "import { createRequire as __karpDriftRequire } from 'node:module';\nconst require = __karpDriftRequire(import.meta.url);",
  },
  plugins: [trimDependencies],
};

/**
 * esbuild options for dist/help.cjs (src/cli/help.ts): the command definitions as CommonJS. The modules that commands'
 * actions import (each `import()` in cli/program.ts) stay out: no action runs there (src/cli/help-only.ts), so none is loaded.
 * `import.meta.url` (package-root.ts finds package.json from it) becomes this file's URL.
 */
export const helpBuildOptions = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: cliBuildOptions.target,
  mainFields: cliBuildOptions.mainFields,
  define: { 'import.meta.url': '__karpDriftUrl' },
  banner: { js: "const __karpDriftUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [
    trimDependencies,
    {
      name: 'actions-left-out',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) =>
          args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
};
