// `npm run build:action [outdir]`: the GitHub Action's bundle, committed in action/dist/ as JavaScript actions are
// (the runner runs action.yml's `main` and `post` from the checked-out repository, with no npm install).
// - action/dist/main.js and post.js: the action's steps, with @actions/core and string-argv inlined.
// - action/dist/cli/: the karp-drift CLI, built as for npm but without the sandbox and demo (a job upgrades a real
//   cluster), whitespace-minified and without source maps, to keep the committed bundle small.
// test/action/bundle.test.ts rebuilds it into a temporary folder and fails when the committed one differs: the CI
// check that the bundle matches the source. The CLI finds package.json, templates/ and vendor/ from the repository
// root above it (src/package-root.ts), as in the checked-out action.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliBuildOptions } from './cli-build-options.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = resolve(root, process.argv[2] ?? 'action/dist');

// The sandbox and demo commands are left out: their modules (and the simulator they carry) are not in this build.
const withoutSandbox = {
  name: 'without-sandbox',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/(sandbox|demo)\.js$/ }, (args) =>
      /[/\\]src[/\\]cli\.ts$/.test(args.importer) ? { path: args.path, namespace: 'not-in-action' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'not-in-action' }, (args) => {
      const name = /(sandbox|demo)/.exec(args.path)[1];
      return {
        // A relative import from resolveDir: nothing in a module of this namespace may depend on the checkout's path.
        contents: `import { UsageError } from './src/errors.ts';\nexport async function ${name}() { throw new UsageError('karp-drift ${name} is not part of the GitHub Action build', { hint: 'install karp-drift from npm to run the ${name}' }); }`,
        loader: 'js',
        resolveDir: root,
      };
    });
  },
};

const shared = { absWorkingDir: root, logLevel: 'warning', legalComments: 'none', minifyWhitespace: true };
await rm(outdir, { recursive: true, force: true });
await build({
  ...shared,
  ...cliBuildOptions,
  entryPoints: { main: 'src/main.ts' },
  outdir: `${outdir}/cli`,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [...cliBuildOptions.plugins, withoutSandbox],
});
await build({
  ...shared,
  entryPoints: { main: 'action/src/index.ts', post: 'action/src/post-index.ts' },
  outdir,
  // No shared chunk: each step is one file, so the CLI's path relative to it (action/src/cli-process.ts) holds.
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  // @actions/core's CommonJS dependencies call require() for Node's built-ins, as the CLI's do.
  banner: cliBuildOptions.banner,
});
