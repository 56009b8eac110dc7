// The reference timelines an unmodified Karpenter v1.12.1 produced (test/fixtures/observed/, README there), read into
// the same shape as a sandbox run recorded here, so a test compares the two with one set of measures: when each old
// NodeClaim was tainted, given its deletionTimestamp and gone; when each new one was created and Initialized.
import { readFileSync } from 'node:fs';
import type { ManualClock } from '../../../src/sandbox/karpenter/clock.js';
import type { KubeObject } from '../../../src/sandbox/kube-api/types.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { NODECLAIMS } from './harness.js';

/** Seconds after the run's t0; undefined when it did not happen within the run. */
export interface OldClaim {
  name: string;
  taint?: number;
  delTS?: number;
  gone?: number;
}

export interface NewClaim {
  name: string;
  created?: number;
  init?: number;
}

export interface Timeline {
  old: OldClaim[];
  fresh: NewClaim[];
}

export function readObserved(run: 'a' | 'b' | 'b2' | 'c' | 'c2' | 'd'): Timeline {
  const text = readFileSync(new URL(`../../fixtures/observed/v1.12.1-${run}.txt`, import.meta.url), 'utf8');
  const old: OldClaim[] = [];
  const fresh: NewClaim[] = [];
  let section: 'old' | 'new' | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('old NodeClaim')) section = 'old';
    else if (line.startsWith('new NodeClaim')) section = 'new';
    else if (line.startsWith('concurrency')) section = undefined;
    else if (section) {
      const [name, ...cells] = line.trim().split(/\s+/);
      if (!name) continue;
      const [a, b, c, d] = cells.map((cell) => (cell === 'None' ? undefined : Number(cell)));
      if (section === 'old') old.push({ name, taint: b, delTS: c, gone: d }); // a: when it was Drifted
      else fresh.push({ name, created: a, init: b });
    }
  }
  return { old, fresh };
}

export interface Measures {
  /** When each command started (the old NodeClaim tainted), in order, seconds after the first. */
  starts: number[];
  /** Commands started within 5 s of the previous one, counted together. */
  waves: number[];
  /** The most old NodeClaims disrupting (tainted, not yet gone) at one time. */
  peak: number;
  /** From the first command to the last old NodeClaim gone. */
  duration: number;
  /** Commands that deleted their node with no replacement: the deletionTimestamp with the taint. */
  deletes: number;
  /** Each old NodeClaim's deletionTimestamp phase: from deletionTimestamp until gone. */
  deleting: number[];
  started: number;
}

export function measure(t: Timeline): Measures {
  const started = t.old.filter((o) => o.taint !== undefined);
  const taints = started.map((o) => o.taint!).sort((x, y) => x - y);
  const first = taints[0] ?? 0;
  const waves: number[] = [];
  taints.forEach((at, i) => {
    if (i === 0 || at - taints[i - 1]! > 5) waves.push(0);
    waves[waves.length - 1]! += 1;
  });
  const instants = [...new Set(started.flatMap((o) => [o.taint!, ...(o.gone !== undefined ? [o.gone] : [])]))];
  const peak = Math.max(0, ...instants.map((at) => started.filter((o) => o.taint! <= at && (o.gone === undefined || at < o.gone)).length));
  const gone = started.map((o) => o.gone).filter((g): g is number => g !== undefined);
  return {
    starts: taints.map((at) => round(at - first)),
    waves,
    peak,
    duration: gone.length > 0 ? round(Math.max(...gone) - first) : 0,
    deletes: started.filter((o) => o.delTS !== undefined && o.delTS - o.taint! <= 0.5).length,
    deleting: started.filter((o) => o.delTS !== undefined && o.gone !== undefined).map((o) => round(o.gone! - o.delTS!)),
    started: started.length,
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Records a sandbox run as the reference runs were sampled (every 0.5 s there, every `stepMs` here): the NodeClaims
 * that exist at the start are the old ones, every later one a new one. One simulator pass per step.
 */
export function record(
  sandbox: Sandbox & { clock: ManualClock },
  options: { seconds: number; stepMs?: number; t0?: number; at?: (seconds: number) => void },
): Timeline {
  const step = options.stepMs ?? 100;
  const t0 = options.t0 ?? sandbox.clock.now().getTime();
  const store = sandbox.kube.store;
  const old = new Map<string, OldClaim>(store.list(NODECLAIMS).map((c) => [c.metadata.name!, { name: c.metadata.name! }]));
  const fresh = new Map<string, NewClaim>();
  const elapsed = () => round((sandbox.clock.now().getTime() - t0) / 1000);
  for (let i = 0; i * step <= options.seconds * 1000; i++) {
    const now = elapsed();
    const claims = new Map(store.list(NODECLAIMS).map((c) => [c.metadata.name!, c]));
    for (const [name, o] of old) {
      const claim = claims.get(name);
      if (!claim) {
        o.gone ??= now;
        continue;
      }
      if (o.taint === undefined && (disrupting(claim) || claim.metadata.deletionTimestamp)) o.taint = now;
      if (o.delTS === undefined && claim.metadata.deletionTimestamp) o.delTS = now;
    }
    for (const [name, claim] of claims) {
      if (old.has(name)) continue;
      const n = fresh.get(name) ?? { name, created: now };
      if (n.init === undefined && conditionTrue(claim, 'Initialized')) n.init = now;
      fresh.set(name, n);
    }
    options.at?.(now);
    sandbox.clock.advance(step);
    sandbox.simulator.pass();
  }
  return { old: [...old.values()], fresh: [...fresh.values()] };
}

const conditionTrue = (c: KubeObject, type: string) =>
  (c.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some((x) => x.type === type && x.status === 'True') ===
  true;
const disrupting = (c: KubeObject) => conditionTrue(c, 'DisruptionReason');
