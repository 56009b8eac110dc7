// The confirmation prompt as a person meets it: stdin and stderr on a terminal (a pseudo-terminal here), stdout
// redirected, as in `karp-drift upgrade --to 1.30 | tee log`. It must ask, and the answer decides.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn as spawnPty } from "@lydell/node-pty";
import { describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { httpWrites, karpDrift, MAIN, scenario } from "./cli-sandbox.js";

const PROMPT = "Only 'yes' will be accepted: ";

interface PtyRun {
  /** What the terminal showed (stderr, and the echo of what was typed). */
  screen: string;
  /** What went to the redirected stdout. */
  stdout: string;
  code: number;
}

/** Runs the CLI with stdin and stderr on a pseudo-terminal and stdout in a file; `answer` is typed at the prompt. */
function atTerminal(
  sandbox: Sandbox,
  args: string[],
  answer: string,
  // How the shell runs the CLI: stdout to the file (the default), or e.g. stdout and stderr through tee into it.
  redirect = 'exec "$@" > "$OUT"',
): Promise<PtyRun> {
  const out = join(
    mkdtempSync(join(tmpdir(), "karp-drift-confirm-")),
    "stdout",
  );
  const pty = spawnPty(
    "/bin/sh",
    ["-c", redirect, "sh", process.execPath, MAIN, ...args],
    {
      cols: 80,
      rows: 30,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        OUT: out,
        ...sandbox.env,
      },
    },
  );
  return new Promise((resolve) => {
    let screen = "";
    let answered = false;
    pty.onData((d) => {
      screen += d;
      if (!answered && screen.includes(PROMPT)) {
        answered = true;
        pty.write(answer);
      }
    });
    pty.onExit(({ exitCode }) =>
      resolve({ screen, stdout: readFileSync(out, "utf8"), code: exitCode }),
    );
  });
}

describe("the confirmation prompt (stdin and stderr a terminal, stdout not)", () => {
  it("asks with stdout redirected, and an answer other than yes refuses with exit 3, changing nothing", async () => {
    const sandbox = await scenario("default");
    const run = await atTerminal(sandbox, ["upgrade", "--to", "1.30"], "n\r");
    expect(run.code, run.screen).toBe(3);
    // Wrapped at spaces to the terminal's 80 columns.
    expect(run.screen.replace(/\s+/g, " ")).toContain(
      "Apply 2 EC2NodeClass change(s)? Karpenter will then replace 12 node(s) through drift, each target AMI on one node first, gated, paced by karp-drift.",
    );
    expect(run.screen).toContain(
      'error: upgrade not confirmed (answered "n", not yes); nothing was changed',
    );
    expect(run.stdout).toContain(
      "Plan: 2 EC2NodeClasses to change, 12 nodes to replace.",
    );
    expect(httpWrites(sandbox)).toBe(0);
  });

  it("Ctrl-C at the prompt ends the line and exits 130, changing nothing", async () => {
    const sandbox = await scenario("default");
    const run = await atTerminal(sandbox, ["upgrade", "--to", "1.30"], "\x03");
    expect(run.code, run.screen).toBe(130);
    // The error starts on a line of its own, not after the question (readline may move the cursor first: ESC[<n>G).
    const shown = run.screen.replaceAll(/\[\d+G/g, "").replaceAll("\u001b", "");
    expect(shown).toMatch(
      /accepted: \r?\nerror: interrupted at the confirmation; nothing was changed/,
    );
    expect(httpWrites(sandbox)).toBe(0);
  });

  it("yes applies; rollback asks in its own words", async () => {
    const sandbox = await scenario("default");
    const applied = await atTerminal(
      sandbox,
      ["upgrade", "--to", "1.30", "--no-wait"],
      "yes\r",
    );
    expect(applied.code, applied.screen).toBe(0);
    expect(applied.stdout).toContain(
      "Applied 2 EC2NodeClass change(s); not waiting (--no-wait).",
    );
    const writes = httpWrites(sandbox);
    expect(writes).toBeGreaterThan(0);

    const declined = await atTerminal(sandbox, ["rollback"], "\x04"); // Ctrl-D: the input ends
    expect(declined.code, declined.screen).toBe(3);
    expect(declined.screen).toContain("Restore 2 EC2NodeClass(es)?");
    expect(declined.screen).toContain(
      "error: rollback not confirmed (the input ended); nothing was changed",
    );
    expect(httpWrites(sandbox)).toBe(writes);

    const noTerminal = await karpDrift(sandbox, ["rollback"]);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toContain(
      "error: rollback changes the cluster and there is no terminal to confirm on",
    );
  });

  it("asks on the terminal when stderr is a pipe too (2>&1 | tee log), and the log records the answer", async () => {
    const sandbox = await scenario("default");
    const run = await atTerminal(
      sandbox,
      ["upgrade", "--to", "1.30", "--no-wait"],
      "yes\r",
      '"$@" 2>&1 | tee "$OUT"',
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.stdout).toContain("Plan: 2 EC2NodeClasses to change, 12 nodes to replace.");
    expect(run.stdout).toContain('Asked at the terminal; answered "yes"');
    expect(run.stdout).not.toContain(PROMPT); // the question itself went to the terminal, not into the log
    expect(run.stdout).toContain("Applied 2 EC2NodeClass change(s); not waiting (--no-wait).");
    expect(httpWrites(sandbox)).toBeGreaterThan(0);
  });

  it("re-running a held rollout at a terminal shows what it resumes and waits for yes; no changes nothing", async () => {
    const sandbox = await scenario("default");
    expect((await karpDrift(sandbox, ["pause"])).code).toBe(0);
    expect((await karpDrift(sandbox, ["upgrade", "--to", "1.30", "--yes", "--no-wait"])).code).toBe(0);
    const writes = httpWrites(sandbox);
    const declined = await atTerminal(sandbox, ["upgrade", "--to", "1.30"], "no\r");
    expect(declined.code, declined.screen).toBe(3);
    expect(declined.stdout).toContain("This rollout is held: karp-drift holds Drifted disruption on nodepool/arm, nodepool/general, nodepool/system.");
    expect(declined.stdout).toMatch(/It was paused with karp-drift pause at /);
    expect(declined.stdout).toContain("Going on resumes it at stage 1/1 (rollout) wave 1/2 (one node per target AMI): 0 of 12 old nodes replaced or under way.");
    expect(declined.screen.replace(/\s+/g, " ")).toContain("Resume the held rollout? karp-drift will release its holds wave by wave, gated, and Karpenter will replace the 12 old node(s) left through drift.");
    expect(declined.screen).toContain('error: upgrade not confirmed (answered "no", not yes); nothing was changed');
    expect(httpWrites(sandbox)).toBe(writes);

    const accepted = await atTerminal(sandbox, ["upgrade", "--to", "1.30"], "yes\r");
    expect(accepted.code, accepted.screen).toBe(0);
    expect(accepted.stdout).toContain("Rollout complete in");
  });
});
