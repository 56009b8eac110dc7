// The reference pages generated from the code (docs/reference/*.md), so they cannot go stale: every command's synopsis,
// options and examples from the commander program (src/cli/program.ts), the exit codes from src/errors.ts, the
// duration flags from src/cli/durations.ts. `npm run docs:ref` writes them; reference.test.ts fails when they differ.
import type { Command, Option } from 'commander';
import { buildProgram, isRequired } from '../../src/cli/program.js';
import { DURATION_FLAGS, DURATION_FORMS } from '../../src/cli/durations.js';
import { EXIT_CODE_MEANINGS, ExitCode } from '../../src/errors.js';

const GENERATED = (source: string) =>
  `<!-- Generated from ${source} by \`npm run docs:ref\`; test/docs/reference.test.ts fails when it is out of date. Do not edit by hand. -->`;

/** The whole program, every command defined, help at a fixed width so the pages do not depend on the terminal. */
export function referenceProgram(): { program: Command; help: (cmd: Command) => string } {
  let out = '';
  const program = buildProgram({
    io: { out: (s) => void (out += s), err: () => undefined, interactive: false },
    env: {},
    stdoutIsTTY: false,
    signal: new AbortController().signal,
  });
  const help = (cmd: Command) => {
    out = '';
    cmd.configureOutput({ writeOut: (s) => void (out += s), getOutHelpWidth: () => 120 });
    cmd.outputHelp();
    return out;
  };
  return { program, help };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A flag's anchor: `#upgrade---canary`, as GitHub makes one from the heading text `upgrade --canary`. */
export const flagAnchor = (command: string, long: string) => `${command}-${long}`.replace(/[^\w-]/g, '');

function defaultText(o: Option): string {
  if (o.defaultValueDescription !== undefined) return o.defaultValueDescription;
  if (o.defaultValue === undefined || o.negate || typeof o.defaultValue === 'boolean') return '';
  return Array.isArray(o.defaultValue) ? o.defaultValue.join(', ') : String(o.defaultValue);
}

function optionRows(options: readonly Option[]): string[] {
  const rows = ['| flag | meaning | default |', '|---|---|---|'];
  for (const o of options.filter((x) => !x.hidden)) {
    const stop = (text: string) => (/[.)]$/.test(text) ? text : `${text}.`);
    const choices = o.argChoices ? ` One of ${o.argChoices.map(code).join(', ')}.` : '';
    const required = isRequired(o) ? ' **Required.**' : '';
    const meaning = choices || required ? stop(o.description) : o.description;
    rows.push(`| ${cell(code(o.flags))} | ${cell(meaning)}${choices}${required} | ${defaultText(o) ? cell(code(defaultText(o))) : ''} |`);
  }
  return rows;
}

/** The examples a command's help ends with (`# what` then the command), as shell blocks; other after-text as is. */
function extraHelp(full: string, cmd: Command): string[] {
  const extra = full.slice(cmd.helpInformation().length).replace(/^\n+/, '');
  const lines: string[] = [];
  for (const section of extra.split(/\n(?=\S)/)) {
    const [title, ...body] = section.split('\n');
    if (title === 'Examples:') {
      lines.push('Examples:', '', '```sh', ...body.map((l) => l.replace(/^ {2}/, '')).filter((l, i, all) => l !== '' || (all[i + 1] ?? '') !== ''), '```', '');
    } else if (title !== undefined && title.trim() !== '') {
      lines.push(`${title}`, '', '```', ...body.filter((l) => l.trim() !== '').map((l) => l.replace(/^ {2}/, '')), '```', '');
    }
  }
  return lines;
}

export function commandsMarkdown(): string {
  const { program, help } = referenceProgram();
  const commands = program.commands;
  const lines = [
    GENERATED('the commander definitions in src/cli/program.ts'),
    '',
    '# Command reference',
    '',
    'Every command, its synopsis, flags and examples, as `karp-drift <command> --help` prints them. A `<duration>`',
    'takes the one grammar [durations.md](durations.md) describes (`90s`, `15m`, `1h30m`, `7d`); the exit codes are in',
    '[exit-codes.md](exit-codes.md).',
    '',
    '| command | what it does |',
    '|---|---|',
    ...commands.map((c) => `| [\`${c.name()}\`](#karp-drift-${c.name()}) | ${cell(c.description())} |`),
    '',
    '## Global options',
    '',
    'Every command takes these (`sandbox` documents its own `--kubeconfig` and `--context`, and refuses the AWS and',
    'cluster flags it has no use for).',
    '',
    ...optionRows(program.options),
    '',
  ];
  for (const c of commands) {
    const usage = `karp-drift ${c.name()} ${c.usage()}`;
    lines.push(`## \`karp-drift ${c.name()}\``, '', `${c.description()}.`.replace(/\.\.$/, '.'), '', '```', usage, '```', '');
    const own = c.options.filter((o) => !o.hidden);
    if (own.length > 0) lines.push(...optionRows(own), '');
    lines.push(...extraHelp(help(c), c));
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

export function exitCodesMarkdown(): string {
  const lines = [
    GENERATED('src/errors.ts (`ExitCode`, `EXIT_CODE_MEANINGS`)'),
    '',
    '# Exit codes',
    '',
    'The same contract for every command. Errors print on stderr as `error: <what failed, where>` and, when there is',
    'one, `  next: <what to do>`; `-v` adds the underlying cause. Credentials and tokens are never printed. Which codes',
    'are worth retrying in automation: [CI and fleets](../ci-and-fleets.md#exit-codes-in-automation).',
    '',
    '| code | name | meaning |',
    '|---|---|---|',
    ...Object.entries(ExitCode).map(([name, n]) => `| ${n} | ${name} | ${cell(EXIT_CODE_MEANINGS[n])} |`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Every option whose value is a duration, by the placeholder it names (`<duration>`, `<cron/duration>` excepted). */
export function durationOptions(program: Command): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const c of [program, ...program.commands])
    for (const o of c.options)
      if (/<duration>/.test(o.flags) && o.long !== undefined) found.set(o.long, [...(found.get(o.long) ?? []), c === program ? '(global)' : c.name()]);
  return found;
}

export function durationsMarkdown(): string {
  const { program } = referenceProgram();
  const used = durationOptions(program);
  const lines = [
    GENERATED('src/cli/durations.ts (`DURATION_FLAGS`) and the commander definitions'),
    '',
    '# Durations',
    '',
    `Every duration flag takes one grammar: Go's \`time.ParseDuration\` (as kubectl's \`--timeout\` does) plus \`d\` for`,
    `24 hours: ${DURATION_FORMS}. Parts add up in any order (\`1h30m\` = \`90m\`), a part may be a decimal (\`1.5h\`), and`,
    '`0` alone is zero. What zero means is each flag\'s own:',
    '',
    '| flag | commands | 0 means |',
    '|---|---|---|',
    ...Object.entries(DURATION_FLAGS).map(([flag, meaning]) => {
      const zero = 'zero' in meaning ? meaning.zero : `refused: ${meaning.refused}`;
      return `| \`${flag}\` | ${(used.get(flag) ?? []).join(', ')} | ${cell(zero)} |`;
    }),
    '',
    "An upgrade window's duration (`--window '<cron>/<duration>'`) is not one of these: it is Karpenter's budget",
    'duration, written into the NodePools as is, so it takes whole hours and minutes only (`3h`, `90m`, `1h30m`).',
  ];
  return `${lines.join('\n')}\n`;
}
