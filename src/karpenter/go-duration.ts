// Go's time.ParseDuration, exactly: Karpenter reads a pod's `karpenter.sh/do-not-disrupt: "30m"` with it, so
// what it accepts, what it refuses and the error text it publishes (InvalidDoNotDisruptAnnotation) follow from it.
// Hand-written because the npm duration parsers accept other forms ("1 hour", "2d") that Go refuses, and Go's
// error messages are part of what Karpenter prints. Mirrors go/src/time/format.go `ParseDuration` and `quote`.

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX = 1n << 63n;

export type GoDuration = { ok: true; ns: bigint; ms: number } | { ok: false; error: string };

/** `"1h30m"` → 5 400 000 ms; `"30"` → `time: missing unit in duration "30"`. */
export function parseGoDuration(text: string): GoDuration {
  const invalid = { ok: false, error: `time: invalid duration ${goQuote(text)}` } as const;
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, ns: 0n, ms: 0 };
  if (s === '') return invalid;
  let total = 0n;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) return invalid;
    const int = /^[0-9]*/.exec(s)![0];
    s = s.slice(int.length);
    let v = 0n;
    for (const c of int) {
      if (v > MAX / 10n) return invalid; // leadingInt overflow
      v = v * 10n + BigInt(c);
      if (v > MAX) return invalid;
    }
    let fraction = '';
    if (s[0] === '.') {
      fraction = /^[0-9]*/.exec(s.slice(1))![0];
      s = s.slice(1 + fraction.length);
    }
    if (int === '' && fraction === '') return invalid; // ".s", "-.s"
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === '') return { ok: false, error: `time: missing unit in duration ${goQuote(text)}` };
    s = s.slice(unit.length);
    const scale = UNITS[unit];
    if (scale === undefined) {
      return { ok: false, error: `time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}` };
    }
    if (v > MAX / scale) return invalid;
    v *= scale;
    // leadingFraction keeps the digits that fit in an int64; Go then adds float64(f) * (unit / scale), truncated.
    let f = 0n;
    let fScale = 1;
    for (const c of fraction) {
      const next = f * 10n + BigInt(c);
      if (f > (MAX - 1n) / 10n || next > MAX) break;
      f = next;
      fScale *= 10;
    }
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(scale) / fScale)));
      if (v > MAX) return invalid;
    }
    total += v;
    if (total > MAX) return invalid;
  }
  if (!neg && total > MAX - 1n) return invalid;
  const ns = neg ? -total : total;
  return { ok: true, ns, ms: Number(ns) / 1e6 };
}

/** Go time's `quote`: printable ASCII as is (`"` and `\` escaped), anything else as `\x` bytes of its UTF-8. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const byte of new TextEncoder().encode(c)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else out += c === '"' || c === '\\' ? `\\${c}` : c;
  }
  return `${out}"`;
}
