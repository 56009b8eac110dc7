// Every link between the README, CONTRIBUTING.md and the manual resolves: the file exists, and an anchor names a
// heading of that file (as GitHub makes anchors). And the manual's table of contents lists every page.
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, docFiles, links, read, ROOT } from './markdown.js';

describe('links in the README and the manual', () => {
  it.each(docFiles())('%s: every link resolves, file and anchor', (file) => {
    const broken: string[] = [];
    for (const { line, target } of links(read(file))) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const to = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, to))) {
        broken.push(`${file}:${line}: ${target}: no ${to}`);
        continue;
      }
      if (anchor !== undefined && !anchors(read(to)).has(anchor)) broken.push(`${file}:${line}: ${target}: ${to} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('the README links into the manual, and the manual lists every page', () => {
    const readme = links(read('README.md')).map((l) => l.target);
    expect(readme).toContain('docs/README.md');
    const index = new Set(links(read('docs/README.md')).map((l) => normalize(join('docs', l.target.split('#')[0]!))));
    const pages = docFiles().filter((f) => f.startsWith('docs/') && f !== 'docs/README.md');
    expect(pages.filter((p) => !index.has(p))).toEqual([]);
  });

  it('knows a broken link when it sees one', () => {
    expect(anchors('# A title\n\n## `karp-drift plan`\n\n```sh\n# not a heading\n```\n## A title').has('karp-drift-plan')).toBe(true);
    expect([...anchors('# A title\n## A title\n```\n# code\n```')]).toEqual(['a-title', 'a-title-1']);
  });
});
