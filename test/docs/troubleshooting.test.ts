// docs/troubleshooting.md has one entry per code the CLI can print, and none for a code it cannot: the checks of a
// plan, the stall diagnosis, the health gates' findings.
import { describe, expect, it } from 'vitest';
import { CHECK_CODES, STAGED_CHECK_CODES, TEMPLATE_CHECK_CODES } from '../../src/plan/checks.js';
import { STALL_CODES } from '../../src/rollout/blocker.js';
import { FINDING_CODES } from '../../src/gates/health.js';
import { prose, read } from './markdown.js';

/** The codes of each `## section`: its `### \`CODE\`` headings, each followed by some text. */
function entries(): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section = new Map<string, string>();
  let code: string | undefined;
  for (const { text } of prose(read('docs/troubleshooting.md'))) {
    const h2 = /^## (.*)$/.exec(text);
    const h3 = /^### `([A-Z0-9-]+)`$/.exec(text);
    if (h2) {
      sections.set(h2[1]!, (section = new Map()));
      code = undefined;
    }
    else if (h3) section.set((code = h3[1]!), '');
    else if (code !== undefined && text.trim() !== '') section.set(code, `${section.get(code) ?? ''} ${text}`.trim());
  }
  return sections;
}

describe('docs/troubleshooting.md', () => {
  const found = entries();
  it.each<[string, readonly string[]]>([
    ['Check codes', [...CHECK_CODES, ...TEMPLATE_CHECK_CODES, ...STAGED_CHECK_CODES]],
    ['Stall codes', STALL_CODES],
    ['Health-gate findings', FINDING_CODES],
  ])('%s: one entry per code the code has, none for a code it has not', (section, codes) => {
    const documented = found.get(section);
    expect([...(documented?.keys() ?? [])].sort()).toEqual([...codes].sort());
    for (const [code, text] of documented ?? []) expect(text.length, code).toBeGreaterThan(40);
  });
});
