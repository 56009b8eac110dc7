// Text printed once (a plan, a log line, an error) for the stream it goes to: on a terminal, its long lines wrapped at
// spaces to the terminal's width (a person reads at 80 columns, and the terminal would break words mid-way); a pipe
// or a file gets the lines whole, for grep and logs. Its own module, loaded only where it is used: `--help` and
// `--version` never load string-width for it.
import { wrapLines, type Screen } from '../report/screen.js';

/** The part of commands/context.ts `Io` it reads (named here, so that context.ts may import this file). */
interface Screens {
  screen?(stream: 'out' | 'err'): Screen | undefined;
}

export function forScreen(io: Screens, stream: 'out' | 'err', text: string): string {
  const screen = io.screen?.(stream);
  return screen === undefined ? text : wrapLines(text, screen.columns);
}
