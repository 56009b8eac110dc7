// The generated reference pages (reference.ts) match the code: a flag, command, exit code or duration flag added,
// changed or gone fails here until `npm run docs:ref` writes the pages again.
import { describe, expect, it } from 'vitest';
import { DURATION_FLAGS } from '../../src/cli/durations.js';
import { COMMANDS } from '../../src/cli/help-only.js';
import { commandsMarkdown, durationOptions, durationsMarkdown, exitCodesMarkdown, referenceProgram } from './reference.js';

describe('docs/reference, generated from the code', () => {
  it.each<[string, () => string]>([
    ['commands.md', commandsMarkdown],
    ['exit-codes.md', exitCodesMarkdown],
    ['durations.md', durationsMarkdown],
  ])('%s is up to date (npm run docs:ref writes it)', async (file, generate) => {
    await expect(generate()).toMatchFileSnapshot(`../../docs/reference/${file}`);
  });

  it('documents every command', () => {
    const markdown = commandsMarkdown();
    for (const name of COMMANDS) expect(markdown).toContain(`## \`karp-drift ${name}\``);
  });

  it('knows what 0 means for exactly the flags that take a <duration>', () => {
    expect([...durationOptions(referenceProgram().program).keys()].sort()).toEqual(Object.keys(DURATION_FLAGS).sort());
  });
});
