// The order of names, times and IDs: by UTF-16 code units, which for what karp-drift sorts is the order an English
// localeCompare gives, under every locale, as kubectl's (Go compares bytes).
import { describe, expect, it } from 'vitest';
import { byName, inOrder } from '../../src/text/order.js';

const english = (a: string, b: string) => Math.sign(a.localeCompare(b, 'en'));

describe('inOrder', () => {
  it.each<[string, string, string, number]>([
    ['NodePool names', 'general', 'gpu', -1],
    ['a hyphen before a dot before digits before letters', 'a-b', 'a.b', -1],
    ['digits one at a time, as kubectl lists them', 'pool-10', 'pool-9', -1],
    ['a prefix first', 'general', 'general-arm', -1],
    ['DNS-1123 subdomains', 'ip-10-0-1-2.ec2.internal', 'ip-10-0-1-20.ec2.internal', -1],
    ['kubelet versions', 'v1.30.4-eks-a737599', 'v1.29.8-eks-a737599', 1],
    ['AMI IDs', 'ami-0c2cb294d9c30d883', 'ami-0990f184a33440aa8', 1],
    ['RFC 3339 times', '2026-07-01T09:00:00Z', '2026-07-01T10:00:00Z', -1],
    ['a time with a fraction after the whole second', '2026-07-01T09:00:00Z', '2026-07-01T09:00:00.5Z', 1],
    ['an undefined time last (\\uffff)', '2026-07-01T09:00:00Z', '\uffff', -1],
    ['equal', 'default', 'default', 0],
  ])('%s: %j vs %j', (_, a, b, sign) => {
    expect(Math.sign(inOrder(a, b))).toBe(sign);
    expect(english(a, b)).toBe(sign);
  });

  it('agrees with an English localeCompare on every pair of names drawn from a-z, 0-9, "-" and "."', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-.';
    let seed = 39;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const name = () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const disagree: Array<[string, string]> = [];
    for (let i = 0; i < 20_000; i++) {
      const a = name();
      const b = next() < 0.5 ? a.slice(0, Math.floor(next() * a.length)) + name() : name();
      if (Math.sign(inOrder(a, b)) !== english(a, b)) disagree.push([a, b]);
    }
    expect(disagree).toEqual([]);
  });

  it('is the same under every locale, where localeCompare is not (Danish sorts "aa" after "z")', () => {
    expect(Math.sign('aa-pool'.localeCompare('zz-pool', 'da'))).toBe(1);
    expect(Math.sign(inOrder('aa-pool', 'zz-pool'))).toBe(-1);
  });

  it('sorts by name', () => {
    expect([{ name: 'system' }, { name: 'arm' }, { name: 'general' }].sort(byName).map((p) => p.name)).toEqual(['arm', 'general', 'system']);
  });
});
