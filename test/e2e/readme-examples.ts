// The shell examples that start a sandbox, as the README, the manual (docs/) and `sandbox --help` print them, to be
// run as written.

export interface ShellExample {
  /** Where it is: the file and line of its block, or the help's comment. */
  where: string;
  lines: string[];
  /** Serves in the foreground until Ctrl-C (no --detach, no `&`): the runner interrupts it once it serves. */
  foreground: boolean;
}

const startsSandbox = (line: string) => /(^|[\s"(])karp-drift sandbox\b/.test(line);

function example(where: string, lines: string[]): ShellExample {
  const starts = lines.filter(startsSandbox);
  return { where, lines, foreground: starts.some((l) => !l.includes('--detach') && !/&\s*(#.*)?$/.test(l)) };
}

/**
 * A Markdown file's code blocks that start a sandbox: ```sh blocks line by line, and transcripts (lines after `$ `,
 * output left out). The synopsis (`karp-drift sandbox [--scenario …]`) is neither.
 */
export function readmeExamples(readme: string, file = 'README.md'): ShellExample[] {
  const found: ShellExample[] = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const transcript = body.some((l) => l.startsWith('$ '));
    const commands = transcript ? body.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)) : open[1] === 'sh' ? body : [];
    if (commands.some(startsSandbox)) found.push(example(`${file}:${start + 1}`, commands.filter((l) => l.trim() !== '')));
  }
  return found;
}

/** `--help`'s Examples: each `# what` comment and the lines under it. */
export function helpExamples(help: string): ShellExample[] {
  const section = help.slice(help.indexOf('\nExamples:\n') + '\nExamples:\n'.length);
  return section
    .split('\n\n')
    .map((group) => group.split('\n').map((l) => l.replace(/^ {2}/, '')))
    .filter((group) => group[0]?.startsWith('# '))
    .map((group) => example(`sandbox --help: ${group[0]!.slice(2)}`, group.slice(1).filter((l) => l.trim() !== '')));
}
