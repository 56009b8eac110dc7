// parseGoDuration against Go's time.ParseDuration: the cases of go/src/time/time_test.go parseDurationTests and
// parseDurationErrorTests, plus the do-not-disrupt values a user writes.
import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../src/karpenter/go-duration.js';

describe('parseGoDuration', () => {
  it.each<[string, bigint]>([
    ['0', 0n],
    ['5s', 5_000_000_000n],
    ['30s', 30_000_000_000n],
    ['1478s', 1_478_000_000_000n],
    ['-5s', -5_000_000_000n],
    ['+5s', 5_000_000_000n],
    ['-0', 0n],
    ['+0', 0n],
    ['5.0s', 5_000_000_000n],
    ['5.6s', 5_600_000_000n],
    ['5.s', 5_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.004s', 1_004_000_000n],
    ['100.00100s', 100_001_000_000n],
    ['10ns', 10n],
    ['11us', 11_000n],
    ['12µs', 12_000n], // U+00B5
    ['12μs', 12_000n], // U+03BC
    ['13ms', 13_000_000n],
    ['15m', 900_000_000_000n],
    ['16h', 57_600_000_000_000n],
    ['3h30m', 12_600_000_000_000n],
    ['10.5s4m', 250_500_000_000n],
    ['-2m3.4s', -123_400_000_000n],
    ['1h2m3s4ms5us6ns', 3_723_004_005_006n],
    ['39h9m14.425s', 140_954_425_000_000n],
    ['52763797000ns', 52_763_797_000n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
    ['9007199254740993ns', 9_007_199_254_740_993n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
    ['9223372036854775.807us', 9_223_372_036_854_775_807n],
    ['-9223372036854775808ns', -9_223_372_036_854_775_808n],
    ['0.100000000000000000000h', 360_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['500ms', 500_000_000n],
    ['2h45m30.5s', 9_930_500_000_000n],
  ])('%s', (text, ns) => {
    expect(parseGoDuration(text)).toEqual({ ok: true, ns, ms: Number(ns) / 1e6 });
  });

  it.each<[string, string]>([
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['1.1.1s', 'time: missing unit in duration "1.1.1s"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['9223372036854775.808us', 'time: invalid duration "9223372036854775.808us"'],
    ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
    ['True', 'time: invalid duration "True"'],
    ['true', 'time: invalid duration "true"'],
    ['yes', 'time: invalid duration "yes"'],
    ['30 m', 'time: unknown unit " m" in duration "30 m"'],
    ['9aÿs', 'time: unknown unit "a\\xc3\\xbfs" in duration "9a\\xc3\\xbfs"'],
    ['"1s"', 'time: invalid duration "\\"1s\\""'],
  ])('%j: %s', (text, error) => {
    expect(parseGoDuration(text)).toEqual({ ok: false, error });
  });
});
