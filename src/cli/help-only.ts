// Which command lines only ask for help or the version: bin.ts answers those from dist/help.cjs, a CommonJS build of
// the command definitions, without starting Node's ES module loader. Anything else, including a help flag among other
// arguments (it could be an option's value), goes to the CLI itself.

/** The commands of cli/program.ts (test/cli/program.test.ts checks that the two lists agree). */
export const COMMANDS: ReadonlySet<string> = new Set([
  'amis',
  'render',
  'plan',
  'upgrade',
  'rollback',
  'status',
  'wait',
  'pause',
  'resume',
  'history',
  'pin',
  'demo',
  'sandbox',
]);

const HELP_FLAGS = new Set(['-h', '--help']);

export function isHelpOnly(argv: readonly string[]): boolean {
  const [first, second, ...rest] = argv;
  if (first === undefined || rest.length > 0) return false;
  if (second === undefined) return HELP_FLAGS.has(first) || first === '--version' || first === 'help';
  return (COMMANDS.has(first) && HELP_FLAGS.has(second)) || (first === 'help' && COMMANDS.has(second));
}

/** Every command line isHelpOnly answers: the program's help and version, and each command's help three ways. */
export const HELP_ONLY_ARGVS: ReadonlyArray<readonly string[]> = [
  ['--help'],
  ['-h'],
  ['help'],
  ['--version'],
  ...[...COMMANDS].flatMap((c) => [[c, '--help'], [c, '-h'], ['help', c]]),
];
