// Imports run one way (src/README.md): a room imports only rooms below it, only two commands start the sandbox, and
// the pure rooms reach no I/O through anything they import. Tables for the rules, then src/ itself.
import { describe, expect, it } from 'vitest';
import { importGraph, packageImports } from './import-graph.js';
import { impureReach, roomOf, roomViolations, type Room } from './rooms.js';
import { sourcesUnder } from './sources.js';

const graphOf = (files: Record<string, string>) => importGraph(new Map(Object.entries(files)));

describe('rooms', () => {
  it.each<[string, Room | undefined]>([
    ['src/bin.ts', 'entries'],
    ['src/errors.ts', 'leaves'],
    ['src/cli/program.ts', 'cli'],
    ['src/karpenter/budgets.ts', 'karpenter'],
    ['src/sandbox/karpenter/pods.ts', 'sandbox'],
    ['src/helpers.ts', undefined],
    ['src/entries/x.ts', undefined],
  ])('%s is in %s', (file, room) => {
    expect(roomOf(file)).toBe(room);
  });

  it.each<[string, Record<string, string>, string[]]>([
    [
      'down is fine, up is not',
      {
        'src/rollout/track.ts': "import type { NodeView } from '../karpenter/views.js';",
        'src/karpenter/views.ts': "import { holdBudget } from '../apis/budget-hold.js';",
        'src/apis/budget-hold.ts': '',
      },
      ['src/karpenter/views.ts -> src/apis/budget-hold.ts: karpenter/ is below apis/'],
    ],
    [
      'a type-only import counts',
      { 'src/report/plan.ts': '', 'src/plan/plan.ts': "import type { X } from '../report/plan.js';" },
      ['src/plan/plan.ts -> src/report/plan.ts: plan/ is below report/'],
    ],
    [
      'only the two doors start the sandbox',
      {
        'src/commands/demo.ts': "const { startSandbox } = await import('../sandbox/sandbox.js');",
        'src/commands/upgrade.ts': "import { startSandbox } from '../sandbox/sandbox.js';",
        'src/sandbox/sandbox.ts': '',
      },
      ['src/commands/upgrade.ts -> src/sandbox/sandbox.ts: only src/commands/sandbox.ts and src/commands/demo.ts start the sandbox'],
    ],
    [
      "the sandbox shares Karpenter's rules, not the product's client",
      {
        'src/sandbox/karpenter/pods.ts': "import { pdbBlock } from '../../karpenter/disruptable.js';\nimport { getJson } from '../../cluster/request.js';",
        'src/karpenter/disruptable.ts': '',
        'src/cluster/request.ts': '',
      },
      ["src/sandbox/karpenter/pods.ts -> src/cluster/request.ts: the sandbox does not borrow the product's cluster/ edge"],
    ],
    [
      'a file at the root of src/ is an entry or a leaf',
      { 'src/helpers.ts': "import { UsageError } from './errors.js';", 'src/errors.ts': '' },
      ['src/helpers.ts: in no room (a room is a directory of src/, or one of the entries and leaves)'],
    ],
  ])('%s', (_name, files, expected) => {
    expect(roomViolations(graphOf(files))).toEqual(expected);
  });

  it('a pure room reaches no I/O, however far down the import is', () => {
    const files = {
      'src/plan/plan.ts': "import { render } from '../manifests/render.js';",
      'src/manifests/render.ts': "import { load } from './templates.js';",
      'src/manifests/templates.ts': "import { readFileSync } from 'node:fs';",
      'src/rollout/track.ts': "import * as z from 'zod';\nimport type { NodeView } from '../karpenter/views.js';",
      'src/karpenter/views.ts': '',
    };
    const sources = new Map(Object.entries(files));
    expect(impureReach(importGraph(sources), packageImports(sources))).toEqual([
      'src/plan/plan.ts -> src/manifests/render.ts -> src/manifests/templates.ts imports node:fs',
    ]);
  });

  it('src/ keeps every rule', () => {
    const sources = sourcesUnder('src');
    expect(sources.size).toBeGreaterThan(100);
    const graph = importGraph(sources);
    expect(roomViolations(graph)).toEqual([]);
    expect(impureReach(graph, packageImports(sources))).toEqual([]);
  });
});
