// `npm run build`: esbuild bundles the CLI and its dependencies into dist/, split at every dynamic import(), so a
// command loads only the code it runs. `--help` is dist/main.js and commander's chunk; `status` adds the Kubernetes
// client, and only the parts of @kubernetes/client-node and the AWS SDK that karp-drift imports (their package
// indexes load every generated API client: about half a second on a small machine). Type checking stays with
// `npm run typecheck` (tsc). Files the code reads at run time (package.json, templates/, scenarios/, vendor/) are
// found from the package root (src/package-root.ts), wherever a module lands in a chunk.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { cliBuildOptions, helpBuildOptions } from './cli-build-options.mjs';
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

await rm(`${root}dist`, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  ...cliBuildOptions,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});
// bench/ and anyone curious: what went into which chunk (esbuild's analyzer reads it).
await writeFile(`${root}dist/meta.json`, JSON.stringify(result.metafile));
await chmod(`${root}dist/main.js`, 0o755);

// The bin, dist/bin.cjs, and what it answers help and the version from, dist/help.cjs: CommonJS, so that those never
// start Node's ES module loader (src/bin.ts). Every other command line goes on to dist/main.js.
await build({
  absWorkingDir: root,
  entryPoints: { bin: 'src/bin.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: cliBuildOptions.target,
  external: ['./help.cjs', './main.js'],
  logLevel: 'warning',
});
await build({
  absWorkingDir: root,
  entryPoints: { help: 'src/cli/help.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  ...helpBuildOptions,
  logLevel: 'warning',
});
await chmod(`${root}dist/bin.cjs`, 0o755);

// dist/help/: what each help-only command line prints into a pipe or a file, printed by commander now, for bin.ts to
// print without loading it (src/cli/help-printed.ts). Run in a child whose stdout is a pipe, as such a run's is, and
// without the variables that turn commander's colours on (with them, bin.ts lets commander print).
const { FORCE_COLOR: _f, CLICOLOR_FORCE: _c, ...env } = process.env;
const printed = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '-e',
      `const { helpTexts, helpFile } = require(${JSON.stringify(`${root}dist/help.cjs`)});
      Promise.all(['karp-drift', 'kubectl-karp_drift'].map(async (bin) =>
        (await helpTexts(bin)).map((p) => ({ ...p, file: helpFile(bin, p.argv) })),
      )).then((all) => process.stdout.write(JSON.stringify(all.flat())));`,
    ],
    { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  ),
);
for (const { file, out, err, code } of printed) {
  if (code !== 0 || err !== '') continue; // printed the long way, as it always was
  await mkdir(dirname(`${root}dist/help/${file}`), { recursive: true });
  await writeFile(`${root}dist/help/${file}`, out);
}
