// pin's flags as commander gives them (defaults included) in, PinOptions or the exact refusal (exit 2) out. The AMI
// flags go through plan's own parser, so what plan refuses pin refuses in the same words.
import { describe, expect, it } from 'vitest';
import { parsePinOptions } from '../../src/cli/pin-options.js';

const DEFAULTS = { release: 'latest', pin: 'id', cluster: true };

describe('pin flags', () => {
  it('--to with plan flags: plan options; the rest pin its own', () => {
    const o = parsePinOptions(['a', 'b/'], { ...DEFAULTS, to: '1.31', release: 'latest~1', minAge: '7d', pin: 'alias', valuesPath: 'x.y', check: true, prBody: 'pr.md', tfvars: 'p.auto.tfvars.json' });
    expect(o).toMatchObject({
      paths: ['a', 'b/'],
      plan: { kubernetes: { version: '1.31' }, release: 'latest~1', minAge: { text: '7d' }, pin: 'alias', nodeClasses: [] },
      valuesPath: 'x.y',
      check: true,
      prBody: 'pr.md',
      tfvars: { path: 'p.auto.tfvars.json', variable: 'karpenter_ami_pins' },
      cluster: true,
    });
    expect(o.windows).toBeUndefined();
  });

  it('--window alone: only the windows, no plan; --no-cluster', () => {
    const o = parsePinOptions(['k/'], { ...DEFAULTS, window: ['0 2 * * mon-thu/3h'], exclude: ['2026-11-27/2026-11-30'], cluster: false });
    expect(o.plan).toBeUndefined();
    expect(o.windows?.windows.map((w) => w.text)).toEqual(['0 2 * * mon-thu/3h']);
    expect(o.windows?.exclusions.map((e) => e.text)).toEqual(['2026-11-27/2026-11-30']);
    expect(o.cluster).toBe(false);
  });

  it.each<[string, string[], Record<string, unknown>, string]>([
    ['no path', [], { to: '1.31' }, 'pin needs the files or directories to change'],
    ['neither --to nor --window', ['k'], {}, 'pin needs --to (the Kubernetes minor of the AMIs to pin) or --window (the upgrade windows to write)'],
    ['an AMI flag without --to', ['k'], { window: ['0 2 * * mon-thu/3h'], release: 'latest~1' }, '--release chooses the AMIs to pin, and there is no --to'],
    ['--exclude without --window', ['k'], { to: '1.31', exclude: ['2026-11-27/2026-11-30'] }, '--exclude closes part of an upgrade window, and there is none: give --window with it'],
    ['a bad --to, in plan\'s words', ['k'], { to: '131' }, '--to "131" is not a Kubernetes version; accepted forms: 1.31, v1.31, or 1.31.4'],
    ['--release with --amis-file, in plan\'s words', ['k'], { to: '1.31', release: 'v20241109', amisFile: 'a.json' }, '--release v20241109 cannot go with --amis-file: the file records the releases to pin'],
    ['an empty --values-path', ['k'], { to: '1.31', valuesPath: ' ' }, '--values-path is empty (is the shell variable you passed unset?)'],
    ['an empty --values-path with --window alone', ['k'], { window: ['0 2 * * mon-thu/3h'], valuesPath: '' }, '--values-path is empty (is the shell variable you passed unset?)'],
    ['--pr-body in a folder that does not exist', ['k'], { to: '1.31', prBody: '/nonexistent-dir/pr.md' }, '--pr-body /nonexistent-dir/pr.md: the folder /nonexistent-dir does not exist'],
    ['a --tfvars-variable Terraform cannot name', ['k'], { to: '1.31', tfvarsVariable: '1x' }, '--tfvars-variable "1x" is not a Terraform variable name'],
  ])('%s', (_name, paths, flags, message) => {
    expect(() => parsePinOptions(paths, { ...DEFAULTS, ...flags })).toThrow(message);
  });
});
