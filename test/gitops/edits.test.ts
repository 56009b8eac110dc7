// Changing YAML at node ranges: a table of files and the value a node gets, with the exact text out. Everything not
// in the changed node is the input's bytes.
import { describe, expect, it } from 'vitest';
import { valueEdits } from '../../src/gitops/node-edits.js';
import { applyEdits, scalarText, styleOf, type Plain } from '../../src/gitops/yaml-edit.js';
import { nodeAt, parseYamlFile, type YamlPath } from '../../src/gitops/yaml-file.js';

function edited(text: string, path: YamlPath, value: Plain): string {
  const file = parseYamlFile('f.yaml', text);
  if ('error' in file) throw new Error(file.error);
  const doc = file.docs[0]!;
  return applyEdits(text, valueEdits(text, doc, nodeAt(doc, path)!, value, styleOf(text)));
}

describe('scalars keep their quoting, and are quoted where YAML 1.1 or 1.2 would read them otherwise', () => {
  it.each<[string, 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | undefined, string]>([
    ['ami-0123', undefined, 'ami-0123'],
    ['ami-0123', 'QUOTE_SINGLE', "'ami-0123'"],
    ['ami-0123', 'QUOTE_DOUBLE', '"ami-0123"'],
    ['0', undefined, '"0"'],
    ['602401143452', undefined, '"602401143452"'],
    ['yes', undefined, '"yes"'],
    ['on', undefined, '"on"'],
    ['1.30', undefined, '"1.30"'],
    ['al2023@v20241109', undefined, 'al2023@v20241109'],
    ['0 5 * * 1-3', undefined, '0 5 * * 1-3'],
    ["it's", 'QUOTE_SINGLE', "'it''s'"],
  ])('%s (%s) → %s', (value, keep, out) => {
    expect(scalarText(value, { json: false, quote: 'double' }, keep)).toBe(out);
  });
});

describe('a node given a new value', () => {
  it.each<[string, string, YamlPath, Plain, string]>([
    [
      'a scalar keeps its quotes and the comment after it',
      'spec:\n  terms:\n    - alias: "al2023@v1"   # keep me\n',
      ['spec', 'terms'],
      [{ alias: 'al2023@v2' }],
      'spec:\n  terms:\n    - alias: "al2023@v2"   # keep me\n',
    ],
    [
      'one key for another keeps the line and its comment',
      'terms:\n- alias: al2023@v1 # pinned\n',
      ['terms'],
      [{ id: 'ami-1' }],
      'terms:\n- id: ami-1 # pinned\n',
    ],
    [
      'a longer list: written from the first item that differs, at the list column, in four-space style',
      'spec:\n    terms:\n        - id: ami-1   # amd64\n    next: 1\n',
      ['spec', 'terms'],
      [{ id: 'ami-1' }, { id: 'ami-2' }],
      'spec:\n    terms:\n        - id: ami-1   # amd64\n        - id: ami-2\n    next: 1\n',
    ],
    [
      'a shorter list drops the items after',
      'terms:\n  - id: a\n  - id: b\nnext: 1\n',
      ['terms'],
      [{ alias: 'al2023@v2' }],
      'terms:\n  - alias: al2023@v2\nnext: 1\n',
    ],
    [
      'a flow list of the same shape changes in place',
      "terms: [{alias: 'al2023@v1'}] # as is\n",
      ['terms'],
      [{ alias: 'al2023@v2' }],
      "terms: [{alias: 'al2023@v2'}] # as is\n",
    ],
    [
      'a flow list of another shape is written flow',
      'terms: [{alias: al2023@v1}]\n',
      ['terms'],
      [{ id: 'ami-1' }, { id: 'ami-2' }],
      'terms: [{id: ami-1}, {id: ami-2}]\n',
    ],
    [
      'an anchored list keeps its anchor; the aliases of it follow it',
      'a: &terms\n  - alias: al2023@v1\nb:\n  terms: *terms\n',
      ['b', 'terms'],
      [{ alias: 'al2023@v2' }],
      'a: &terms\n  - alias: al2023@v2\nb:\n  terms: *terms\n',
    ],
    [
      'JSON stays JSON',
      '{\n  "terms": [\n    {"alias": "al2023@v1"}\n  ],\n  "x": 1\n}\n',
      ['terms'],
      [{ id: 'ami-1' }, { id: 'ami-2' }],
      '{\n  "terms": [\n    {\n      "id": "ami-1"\n    },\n    {\n      "id": "ami-2"\n    }\n  ],\n  "x": 1\n}\n',
    ],
    [
      'JSON on one line stays on one line',
      '{"terms": [{"alias": "al2023@v1"}], "x": 1}\n',
      ['terms'],
      [{ id: 'ami-1' }],
      '{"terms": [{"id": "ami-1"}], "x": 1}\n',
    ],
    [
      'a file without a final newline keeps it that way',
      'terms:\n- id: a',
      ['terms'],
      [{ id: 'a' }, { id: 'b' }],
      'terms:\n- id: a\n- id: b',
    ],
  ])('%s', (_name, text, path, value, out) => {
    expect(edited(text, path, value)).toBe(out);
  });

  it('an unchanged value changes nothing', () => {
    const text = 'terms:\n  - {id: "a"}   # x\n';
    expect(edited(text, ['terms'], [{ id: 'a' }])).toBe(text);
  });
});
