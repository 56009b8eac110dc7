// The built CLI (scripts/build.mjs bundles it into dist/): every command starts from the bundle, and each loads only
// the chunks it needs. Which files a run loads comes from a module resolve hook (node:module register) that writes
// every resolved URL to a file; which code a chunk holds comes from esbuild's metafile (dist/meta.json). Structure,
// not timing: `npm run bench` measures the time.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { HELP_ONLY_ARGVS } from "../../src/cli/help-only.js";
import { helpFile } from "../../src/cli/help-printed.js";
import { MAIN } from "./cli-sandbox.js";
import { pty } from "./terminal.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "karp-drift-bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.KARP_DRIFT_LOADED, resolved.url + '\\n');
  return resolved;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}
const meta = JSON.parse(
  readFileSync(join(ROOT, "dist", "meta.json"), "utf8"),
) as Meta;

/** Runs the built CLI; returns its exit code, stderr, and the source files (esbuild's input paths) it loaded. */
function run(
  args: string[],
  n: number,
  entry = MAIN,
  env: Record<string, string> = {},
): {
  code: number | null;
  stdout: string;
  stderr: string;
  sources: string[];
  files: string[];
  /** Node's builtins imported as ES modules (`node:…`); one required is not resolved here. */
  builtins: string[];
} {
  const loaded = join(dir, `loaded-${n}.txt`);
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      entry,
      ...args,
    ],
    {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        KARP_DRIFT_LOADED: loaded,
        ...env,
      },
      encoding: "utf8",
    },
  );
  const resolved = readFileSync(loaded, "utf8").split("\n");
  const urls = resolved.filter((u) => u.startsWith("file:"));
  const builtins = [...new Set(resolved.filter((u) => u.startsWith("node:")))];
  const files = [...new Set(urls.map((u) => relative(ROOT, fileURLToPath(u))))];
  const sources = files.flatMap((f) =>
    Object.keys(meta.outputs[f]?.inputs ?? {}),
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, sources, files, builtins };
}

const from = (sources: string[], what: string) =>
  sources.filter((s) => s.includes(what));

describe("the bundled CLI", () => {
  it("answers --help and --version from commander and its own wiring: no Kubernetes client, AWS SDK or zod", () => {
    for (const [i, args] of [
      ["--help"],
      ["--version"],
      ["plan", "--help"],
    ].entries()) {
      const r = run(args, i);
      expect(r.code).toBe(0);
      expect(r.files.every((f) => f.startsWith("dist/"))).toBe(true); // the dependencies are in the bundle
      expect(from(r.sources, "node_modules/commander/").length).toBeGreaterThan(
        0,
      );
      expect(from(r.sources, "@kubernetes/client-node")).toEqual([]);
      expect(from(r.sources, "@aws-sdk/")).toEqual([]);
      expect(from(r.sources, "node_modules/zod/")).toEqual([]);
    }
  });

  // Each command up to its first check of its input: its chunk loaded and ran, from the bundle.
  it.each([
    [
      "status",
      ["status", "--kubeconfig", "/nonexistent"],
      "--kubeconfig /nonexistent: no such file",
    ],
    [
      "plan",
      ["plan", "--to", "1.30", "--kubeconfig", "/nonexistent"],
      "--kubeconfig /nonexistent: no such file",
    ],
    [
      "upgrade",
      ["upgrade", "--to", "1.30", "--yes", "--kubeconfig", "/nonexistent"],
      "--kubeconfig /nonexistent: no such file",
    ],
    [
      "rollback",
      ["rollback", "--yes", "--kubeconfig", "/nonexistent"],
      "--kubeconfig /nonexistent: no such file",
    ],
    [
      "render",
      [
        "render",
        "--to",
        "1.30",
        "--cluster-name",
        "c",
        "--role",
        "r",
        "--templates",
        "/nonexistent",
      ],
      "--templates /nonexistent: no such directory",
    ],
    [
      "amis",
      ["amis", "--to", "1.30", "--family", "bogus"],
      '--family "bogus" is not valid',
    ],
    // The built-in scenarios are listed from scenarios/ at the package root, found from a chunk of dist/.
    [
      "sandbox",
      ["sandbox", "--scenario", "nonexistent"],
      "built-in: ami-not-found, bad-ami, bad-ami-launch-fails, bad-ami-never-ready, bad-ami-never-registers, bad-ami-not-ready, budget-blocked, crash-loop, default",
    ],
    [
      "demo",
      ["demo", "--scenario", "nonexistent"],
      "built-in: ami-not-found, bad-ami, bad-ami-launch-fails, bad-ami-never-ready, bad-ami-never-registers, bad-ami-not-ready, budget-blocked, crash-loop, default",
    ],
  ])("%s starts from the bundle", (command, args, message) => {
    const r = run(args, 10 + args.length + command.length);
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(2);
    expect(r.files.some((f) => f.startsWith(`dist/chunks/${command}-`))).toBe(
      true,
    );
  });

  it("status loads KubeConfig, not the generated API clients and models, nor the AWS SDK", () => {
    const r = run(["status", "--kubeconfig", "/nonexistent"], 99);
    expect(
      from(r.sources, "@kubernetes/client-node/dist/config.js").length,
    ).toBe(1);
    expect(from(r.sources, "@kubernetes/client-node/dist/gen/models/")).toEqual(
      [],
    );
    expect(from(r.sources, "@kubernetes/client-node/dist/gen/apis/")).toEqual(
      [],
    );
    expect(from(r.sources, "@aws-sdk/")).toEqual([]);
    // zod's parsers, and of its locales only the English one its messages start from (a named `{ z }` import kept
    // all 40 of them: half a megabyte more to compile on every run).
    expect(from(r.sources, "node_modules/zod/").length).toBeGreaterThan(0);
    expect(from(r.sources, "node_modules/zod/v4/locales/").map((s) => s.replace(/.*\//, ""))).toEqual(["en.js"]);
    // node:http required, never imported: on Node 22+ its ES module facade reads http.WebSocket, which loads undici
    // (about 20 ms; scripts/cli-build-options.mjs). node:https is imported as usual.
    expect(r.builtins).toContain("node:https");
    expect(r.builtins).not.toContain("node:http");
  });

  // An AWS SDK client's schemas file declares every shape of its service; the build keeps those its commands reach
  // (scripts/cli-build-options.mjs): for EC2's DescribeImages, tens of kilobytes of a 1.3 MB file.
  it("keeps only the EC2 shapes DescribeImages reaches", () => {
    const bytes = Object.values(meta.outputs).flatMap((o) =>
      Object.entries(o.inputs as Record<string, { bytesInOutput: number }>)
        .filter(([input]) => input.endsWith("@aws-sdk/client-ec2/dist-es/schemas/schemas_0.js"))
        .map(([, i]) => i.bytesInOutput),
    );
    expect(bytes.length).toBeGreaterThan(0);
    expect(Math.max(...bytes)).toBeLessThan(100_000);
  });

  // The bin (package.json "bin"): help and the version from dist/help.cjs, CommonJS, never the ES module CLI; the
  // same words as the CLI prints, since it is the same code (src/bin.ts).
  const BIN = join(ROOT, "dist", "bin.cjs");
  it.each([
    [["--help"]],
    [["-h"]],
    [["--version"]],
    [["help"]],
    [["help", "upgrade"]],
    [["upgrade", "--help"]],
    [["sandbox", "--help"]],
  ])("the bin answers %j without loading the CLI, as the CLI does", (args) => {
    const bin = run(args, 200 + args.join("").length, BIN);
    const cli = run(args, 300 + args.join("").length);
    expect(bin.code).toBe(0);
    expect(bin.stdout).toMatch(/\S/);
    expect([bin.code, bin.stdout, bin.stderr]).toEqual([
      cli.code,
      cli.stdout,
      cli.stderr,
    ]);
    // Through the ES module loader (the --import hook puts even a CommonJS main there) only the bin itself went.
    expect(bin.files).toEqual(["dist/bin.cjs"]);
  });

  // Into a pipe, the bin prints help and the version as printed at build time (src/cli/help-printed.ts); with
  // FORCE_COLOR set (0: no colour, as for a pipe) commander prints them. The two must be the same words, for every
  // help-only command line and both names the bin is installed under.
  it("prints from dist/help/ what commander prints, for every help-only command line, as karp-drift and as kubectl-karp_drift", async () => {
    const bins = mkdtempSync(join(tmpdir(), "karp-drift-bins-"));
    try {
      const runs: Array<{ name: string; argv: readonly string[] }> = [];
      for (const name of ["karp-drift", "kubectl-karp_drift"]) {
        symlinkSync(BIN, join(bins, name));
        expect(readdirSync(join(ROOT, "dist", "help", name)).sort()).toEqual(
          HELP_ONLY_ARGVS.map((argv) => helpFile(name, argv).slice(name.length + 1)).sort(),
        );
        // Every command line as karp-drift; as kubectl-karp_drift, the program's and one command's.
        runs.push(...HELP_ONLY_ARGVS.filter((argv) => name === "karp-drift" || argv.length === 1 || argv.includes("upgrade")).map((argv) => ({ name, argv })));
      }
      const answer = (name: string, argv: readonly string[], env: Record<string, string>) =>
        new Promise<[number | null, string, string]>((resolve) => {
          const child = spawn(process.execPath, [join(bins, name), ...argv], { env: { PATH: process.env.PATH ?? "", ...env } });
          let [out, err] = ["", ""];
          child.stdout.on("data", (c: Buffer) => (out += c.toString()));
          child.stderr.on("data", (c: Buffer) => (err += c.toString()));
          child.on("close", (code) => resolve([code, out, err]));
        });
      // Four at a time: a few seconds for about a hundred short runs.
      for (let i = 0; i < runs.length; i += 4) {
        await Promise.all(
          runs.slice(i, i + 4).map(async ({ name, argv }) => {
            const [printed, commander] = await Promise.all([answer(name, argv, {}), answer(name, argv, { FORCE_COLOR: "0" })]);
            expect(printed[0]).toBe(0);
            expect(printed, `${name} ${argv.join(" ")}`).toEqual(commander);
          }),
        );
      }
    } finally {
      rmSync(bins, { recursive: true, force: true });
    }
  });

  it("prints the text in dist/help/ (a copy changed on purpose shows it)", () => {
    const copy = mkdtempSync(join(tmpdir(), "karp-drift-help-"));
    try {
      cpSync(join(ROOT, "dist", "bin.cjs"), join(copy, "bin.cjs"));
      cpSync(join(ROOT, "dist", "help"), join(copy, "help"), { recursive: true });
      writeFileSync(join(copy, "help", helpFile("karp-drift", ["status", "--help"])), "printed at build time\n");
      const r = spawnSync(process.execPath, [join(copy, "bin.cjs"), "status", "--help"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
      expect([r.status, r.stdout, r.stderr]).toEqual([0, "printed at build time\n", ""]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  // A terminal's width is the terminal's: commander formats for it, as it always did.
  it.skipIf(pty === undefined)("formats --help for a terminal 100 columns wide", async () => {
    const child = pty!.spawn(process.execPath, [BIN, "--help"], { cols: 100, rows: 50, env: { PATH: process.env.PATH ?? "", TERM: "dumb" } });
    let out = "";
    child.onData((d) => (out += d));
    expect(await new Promise<number>((resolve) => child.onExit(({ exitCode }) => resolve(exitCode)))).toBe(0);
    const shown = out.replace(/\r\n/g, "\n");
    // The description, one line of 108 characters: wrapped at 100 columns here, at 80 in the file printed for a pipe.
    const description = "Upgrade Karpenter-managed EKS worker nodes through drift: resolve EKS-optimized";
    expect(shown.split("\n").find((l) => l.startsWith(description))?.length).toBeGreaterThan(80);
    expect(readFileSync(join(ROOT, "dist", "help", helpFile("karp-drift", ["--help"])), "utf8").split("\n")).toContain(description);
    expect(shown).not.toBe(readFileSync(join(ROOT, "dist", "help", helpFile("karp-drift", ["--help"])), "utf8"));
  });

  it.each([
    [["status", "--kubeconfig", "/nonexistent"], 2],
    [["--help", "upgrade"], 0],
    [["upgrad", "--help"], 0],
    [[], 0],
  ])("the bin runs the CLI for %j, with its exit code", (args, code) => {
    const bin = run(args, 400 + args.join("").length, BIN);
    const cli = run(args, 500 + args.join("").length);
    expect(bin.code).toBe(code);
    expect([bin.code, bin.stdout, bin.stderr]).toEqual([
      cli.code,
      cli.stdout,
      cli.stderr,
    ]);
    expect(bin.files).toContain("dist/main.js");
  });
});
