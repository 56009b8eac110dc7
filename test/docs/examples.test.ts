// The command lines of the README and the manual are ones the CLI takes: every `karp-drift <command>` names a command
// and only flags it accepts (its own and the global ones), so a flag renamed or gone fails here, not in a reader's
// terminal. A block that only works in CI (it reads $GITHUB_…) says so on its first line, and its upgrades and
// rollbacks carry --yes: pasted outside CI it would otherwise stop at a missing variable or a question.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { docFiles, prose, read } from './markdown.js';

const program = buildProgram({
  io: { out: () => undefined, err: () => undefined, interactive: false },
  env: {},
  stdoutIsTTY: false,
  signal: new AbortController().signal,
});
const flagsOf = (cmd: Command) =>
  new Set([...cmd.options, ...program.options].flatMap((o) => [o.long, o.short, o.long?.replace(/^--no-/, '--')]).filter((f) => f !== undefined));
const COMMANDS = new Map(program.commands.map((c) => [c.name(), flagsOf(c)]));

interface Block {
  lang: string;
  line: number;
  lines: string[];
}

/**
 * Shell text as a shell reads its words: continuation lines joined, comments dropped, a single-quoted argument (a
 * --gate-cmd's script, a --window's cron) blanked, since the flags inside it are another program's.
 */
export function shellText(text: string): string {
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      out += c === "'" ? c : ' ';
    } else if (c === '\\' && text[i + 1] === '\n') {
      out += ' ';
      i++;
    } else if (quote === undefined && c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else {
      if (c === "'" && quote === undefined) quote = "'";
      else if (c === '"') quote = quote === '"' ? undefined : '"';
      out += c;
    }
  }
  return out;
}

/** Fenced blocks, as their lines (a shell block's read as a shell reads them). */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)/.exec(lines[i]!);
    if (!open) continue;
    const block: Block = { lang: open[1]!, line: i + 1, lines: [] };
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) block.lines.push(lines[i]!);
    out.push(block);
  }
  return out;
}

/** The karp-drift command lines of a file: shell blocks, `$ ` lines of transcripts, and inline code. */
function commandLines(file: string): Array<{ where: string; text: string }> {
  const text = read(file);
  const fromBlocks = blocks(text).flatMap((b) =>
    (b.lang === 'sh' ? shellText(b.lines.join('\n')).split('\n') : b.lines.filter((l) => l.startsWith('$ ')).map((l) => shellText(l.slice(2)))).map(
      (l) => ({ where: `${file}:${b.line}`, text: l }),
    ),
  );
  const inline = prose(text).flatMap(({ line, text: l }) =>
    [...l.matchAll(/`([^`]*karp-drift [^`]*)`/g)].map((m) => ({ where: `${file}:${line}`, text: m[1]! })),
  );
  return [...fromBlocks, ...inline];
}

/** Each `karp-drift <command> …` in a line: the command and the flags given to it (up to a comment, pipe or `;`). */
function invocations(line: string): Array<{ command: string; flags: string[] }> {
  return [...line.matchAll(/(?:^|[\s"'($])karp-drift\s+([a-z]+)([^#|;&>)]*)/g)]
    .filter((m) => COMMANDS.has(m[1]!))
    .map((m) => ({ command: m[1]!, flags: [...m[2]!.matchAll(/(?:^|\s|\[)(--?[a-z][\w-]*)/g)].map((f) => f[1]!) }));
}

describe('command lines in the README and the manual', () => {
  it.each(docFiles())('%s: every karp-drift command line uses flags its command has', (file) => {
    const unknown = commandLines(file).flatMap(({ where, text }) =>
      invocations(text).flatMap(({ command, flags }) =>
        flags.filter((f) => !COMMANDS.get(command)!.has(f)).map((f) => `${where}: karp-drift ${command} ${f}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it.each(docFiles())('%s: a block that needs CI says so, and answers for itself (--yes)', (file) => {
    const unsafe = blocks(read(file))
      .filter((b) => b.lang === 'sh' && b.lines.some((l) => l.includes('$GITHUB_')))
      .flatMap((b) => [
        ...(/^# .*\bCI\b/.test(b.lines[0] ?? '') ? [] : [`${file}:${b.line}: reads $GITHUB_… but its first line does not say it is for CI`]),
        ...shellText(b.lines.join('\n'))
          .split('\n')
          .filter((l) => /karp-drift (upgrade|rollback)\b/.test(l) && !/--yes|--dry-run/.test(l))
          .map((l) => `${file}:${b.line}: asks without a terminal: ${l.trim()}`),
      ]);
    expect(unsafe).toEqual([]);
  });

  it('reads a command line as a shell would', () => {
    expect(shellText("karp-drift upgrade --yes \\\n  --gate-cmd 'curl -sf \"$P\" \\\n --data x' # a --comment\nnext").replace(/ +/g, ' ')).toBe(
      "karp-drift upgrade --yes --gate-cmd ' ' \nnext",
    );
    expect(invocations('eval "$(karp-drift sandbox --detach)"; karp-drift upgrade --to 1.30 --yes # --not-a-flag')).toEqual([
      { command: 'sandbox', flags: ['--detach'] },
      { command: 'upgrade', flags: ['--to', '--yes'] },
    ]);
  });
});
