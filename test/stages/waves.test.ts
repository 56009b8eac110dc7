import { describe, expect, it } from 'vitest';
import { currentWave, parseWaves, waveShares, waveSizes, waveTargets, type WaveStep } from '../../src/stages/waves.js';

const steps = (text: string): WaveStep[] => {
  const parsed = parseWaves(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.steps;
};

describe('parseWaves', () => {
  it.each<[string, string]>([
    ['1,10%,100%', '1 10% 100%'],
    [' 1 , 5 , 50% ', '1 5 50%'],
    ['100%', '100%'],
    ['3', '3'],
    ['1,2,10%,20%', '1 2 10% 20%'],
    ['1/ami,100%', '1/ami 100%'],
    ['1/AMI,1,10%', '1/ami 1 10%'],
  ])('%s', (text, expected) => {
    expect(
      steps(text)
        .map((s) => s.text)
        .join(' '),
    ).toBe(expected);
  });

  it.each<[string, string]>([
    ['', '"" is not a list of wave sizes: use counts and percentages separated by commas, e.g. 1,10%,100%'],
    ['1,,2', '"1,,2" is not a list of wave sizes: use counts and percentages separated by commas, e.g. 1,10%,100%'],
    ['0,100%', 'wave "0" replaces no node: every wave must be at least 1 or 1%'],
    ['0%', 'wave "0%" replaces no node: every wave must be at least 1 or 1%'],
    ['150%', 'wave "150%" is over 100%'],
    ['10%,5%', 'waves are cumulative and must increase: "5%" follows "10%"'],
    ['5,5', 'waves are cumulative and must increase: "5" follows "5"'],
    ['100%,3', '"3" follows "100%", which is already the whole stage'],
    ['one', 'wave "one" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['1.5', 'wave "1.5" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['-1', 'wave "-1" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
    ['100%,1/ami', '"1/ami" tests each target AMI first, so it can only be the first wave'],
    ['1/ami,1/ami', '"1/ami" tests each target AMI first, so it can only be the first wave'],
    ['10 %', 'wave "10 %" is neither a node count (e.g. 5), a percentage (e.g. 10%) nor 1/ami (one node per target AMI)'],
  ])('%j is refused', (text, error) => {
    expect(parseWaves(text)).toEqual({ error });
  });
});

describe('waveTargets: cumulative nodes replaced by the end of each wave', () => {
  it.each<[string, number, number[], number[]]>([
    ['1,10%,100%', 100, [1, 10, 100], [1, 9, 90]],
    ['1,10%,100%', 5000, [1, 500, 5000], [1, 499, 4500]],
    // 10 % of 12 is 1.2, rounded up to 2, as Karpenter rounds budget percentages.
    ['1,10%,100%', 12, [1, 2, 12], [1, 1, 10]],
    // 10 % of 3 rounds up to 1, the same as the first wave: the waves collapse.
    ['1,10%,100%', 3, [1, 3], [1, 2]],
    ['1,10%,100%', 1, [1], [1]],
    ['1,10%,100%', 0, [], []],
    // A list short of the whole stage gets a last wave for the rest.
    ['1,10%', 50, [1, 5, 50], [1, 4, 45]],
    ['5', 3, [3], [3]],
    ['2,5', 20, [2, 5, 20], [2, 3, 15]],
    // A count above what a percentage gives: the target never goes back.
    ['10,20%', 20, [10, 20], [10, 10]],
    ['25%,50%,75%,100%', 7, [2, 4, 6, 7], [2, 2, 2, 1]],
  ])('%s of %i nodes', (text, total, targets, sizes) => {
    expect(waveTargets(steps(text), total)).toEqual(targets);
    expect(waveSizes(targets)).toEqual(sizes);
  });

  it.each<[string, number, number, number[]]>([
    // One node per target AMI whose old nodes run pods, then the rest.
    ['1/ami,100%', 17, 2, [2, 17]],
    ['1/ami,100%', 12, 4, [4, 12]],
    // No AMI to test (only empty nodes move): the wave collapses, the rest is one wave.
    ['1/ami,100%', 5, 0, [5]],
    // More AMIs than nodes (one node each at most): the whole stage.
    ['1/ami,100%', 2, 3, [2]],
    // A later step that adds nothing at this size collapses into it.
    ['1/ami,2,10%,100%', 40, 3, [3, 4, 40]],
  ])('%s of %i nodes with %i AMIs to test', (text, total, amis, targets) => {
    expect(waveTargets(steps(text), total, amis)).toEqual(targets);
  });
});

describe('currentWave: counted from what the cluster shows', () => {
  it.each<[number[], number, number | undefined]>([
    [[1, 10, 100], 0, 0],
    [[1, 10, 100], 1, 1],
    [[1, 10, 100], 9, 1],
    [[1, 10, 100], 10, 2],
    [[1, 10, 100], 99, 2],
    [[1, 10, 100], 100, undefined],
    [[], 0, undefined],
  ])('targets %j, %i replaced', (targets, replaced, wave) => {
    expect(currentWave(targets, replaced)).toBe(wave);
  });
});

describe("waveShares: a wave's target shared among the stage's NodePools", () => {
  it.each<[string, number, number[], number[]]>([
    ['in proportion, adding up exactly', 10, [60, 30, 10], [6, 3, 1]],
    ['largest remainders take what is left', 5, [50, 30, 20], [3, 1, 1]],
    // large: 500 of 5,000 over general-amd64 3,000, arm64 1,500, bottlerocket 500 (was: all 500 to the first).
    ['a tenth of large', 500, [3000, 1500, 500], [300, 150, 50]],
    // default with --waves 1,50%,100%: arm 3, general 6, system 3 → 50 % of 12 is 6.
    ['half of default', 6, [3, 6, 3], [2, 3, 1]],
    ['a canary of one goes to the largest NodePool', 1, [3, 6, 3], [0, 1, 0]],
    ['as soon as the target reaches the NodePools, each gets one', 3, [1, 100, 1], [1, 1, 1]],
    ['below that, one each, the largest first', 2, [1, 100, 1], [1, 1, 0]],
    ['never more than a NodePool has', 4, [1, 1, 10], [1, 1, 2]],
    ['a NodePool with no old nodes gets none', 3, [0, 4, 2], [0, 2, 1]],
    ['the whole stage', 12, [3, 6, 3], [3, 6, 3]],
    ['over the whole stage is the whole stage', 20, [3, 6, 3], [3, 6, 3]],
    ['nothing', 0, [3, 6, 3], [0, 0, 0]],
    ['no old nodes at all', 5, [0, 0], [0, 0]],
  ])('%s: %i of %j', (_name, target, old, expected) => {
    const shares = waveShares(target, old);
    expect(shares).toEqual(expected);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.min(target, old.reduce((a, b) => a + b, 0)));
  });

  it('a later wave never gives a NodePool fewer than an earlier one', () => {
    for (const old of [[3, 6, 3], [1, 100, 1], [3000, 1500, 500], [7, 2, 9, 1]]) {
      const total = old.reduce((a, b) => a + b, 0);
      let previous = old.map(() => 0);
      for (let t = 0; t <= total; t++) {
        const shares = waveShares(t, old);
        shares.forEach((s, i) => expect(s, `${t} of ${JSON.stringify(old)}`).toBeGreaterThanOrEqual(previous[i]!));
        previous = shares;
      }
    }
  });
});
