// Injected API server trouble, changed at run time by tests and scenarios: failed requests (500, or 429 with
// Retry-After as API Priority and Fairness answers), RBAC refusals, slow answers, and watch connections cut as a
// load balancer or an apiserver restart cuts them. Rates draw from a seeded generator so a run replays exactly.
import { seededRandom } from '../scenarios/random.js';

/** Which requests a fault applies to; an omitted field matches everything. `resource` is e.g. `nodeclaims`. */
export interface KubeFaultTarget {
  verbs?: string[];
  resources?: string[];
  /** Object names (metadata.name), for requests that name one. */
  names?: string[];
}

export type FailureFault = KubeFaultTarget & {
  code: 500 | 429;
  /** Seconds for Retry-After on a 429 (default 1). */
  retryAfterSeconds?: number;
} & ({ rate: number } | { next: number });

/** What a validating admission webhook (Kyverno, Gatekeeper) answers when its policy denies a write. */
export interface AdmissionDenial {
  /** The webhook's name, quoted in the message as kube-apiserver quotes it. */
  webhook: string;
  /** The policy's own words. */
  message: string;
}

export interface FaultDecision {
  delayMs: number;
  failure?: { code: 500 | 429; retryAfterSeconds: number } | { code: 403 } | ({ code: 400 } & AdmissionDenial);
}

interface Rule<T> {
  target: KubeFaultTarget;
  spec: T;
}

export class KubeFaults {
  private failures: Array<
    Rule<{
      code: 500 | 429;
      retryAfterSeconds: number;
      rate?: number;
      next?: number;
    }>
  > = [];
  private forbids: Array<Rule<null>> = [];
  private denials: Array<Rule<AdmissionDenial>> = [];
  private hooks: Array<Rule<() => void>> = [];
  private delays: Array<Rule<number>> = [];
  private readonly watchDroppers = new Set<() => void>();
  private readonly watchExpirers = new Set<() => void>();
  private dropTimer: NodeJS.Timeout | undefined;
  private readonly random: () => number;

  constructor(seed = 1) {
    const draws = seededRandom(seed, 'kube-faults');
    this.random = () => draws.next();
  }

  /** Fail a fraction (0–1) of matching requests until cleared, or the next N of them. */
  fail(fault: FailureFault): void {
    const { verbs, resources, names, code } = fault;
    const spec = 'rate' in fault ? { rate: fault.rate } : { next: fault.next };
    this.failures.push({
      target: { verbs, resources, names },
      spec: { code, retryAfterSeconds: fault.retryAfterSeconds ?? 1, ...spec },
    });
  }

  /** Answer matching requests 403 Forbidden, as RBAC does for a user without the permission. */
  forbid(target: KubeFaultTarget): void {
    this.forbids.push({ target, spec: null });
  }

  /** Deny matching writes as a validating admission webhook does (400, "admission webhook ... denied the request"). */
  denyAdmission(target: KubeFaultTarget, denial: AdmissionDenial): void {
    this.denials.push({ target, spec: denial });
  }

  /**
   * Run `action` once, just before the next matching request is served: another actor's change landing between two
   * of the client's requests (a colleague's `kubectl edit` between a plan's read and its apply).
   */
  beforeNext(target: KubeFaultTarget, action: () => void): void {
    this.hooks.push({ target, spec: action });
  }

  /** Hold matching responses for `ms` before answering. */
  delay(ms: number, target: KubeFaultTarget = {}): void {
    this.delays.push({ target, spec: ms });
  }

  /** Closes every open watch connection now; clients see the stream end mid-flight. */
  dropWatches(): void {
    for (const drop of [...this.watchDroppers]) drop();
  }

  /**
   * Ends every open watch with an ERROR event 410 Expired, as kube-apiserver ends a watcher that fell behind (or
   * whose resourceVersion left the watch cache): the client must list again, not resume.
   */
  expireWatches(): void {
    for (const expire of [...this.watchExpirers]) expire();
  }

  /** Closes every open watch connection every `seconds` until cleared (0 or clear() stops it). */
  dropWatchesEvery(seconds: number): void {
    clearInterval(this.dropTimer);
    this.dropTimer = seconds > 0 ? setInterval(() => this.dropWatches(), seconds * 1000).unref() : undefined;
  }

  clear(): void {
    this.failures = [];
    this.forbids = [];
    this.denials = [];
    this.hooks = [];
    this.delays = [];
    this.dropWatchesEvery(0);
  }

  /** For the watch handler: registers how to cut one open watch; returns the unregistration. */
  onDropWatches(drop: () => void): () => void {
    this.watchDroppers.add(drop);
    return () => this.watchDroppers.delete(drop);
  }

  /** For the watch handler: registers how to expire one open watch; returns the unregistration. */
  onExpireWatches(expire: () => void): () => void {
    this.watchExpirers.add(expire);
    return () => this.watchExpirers.delete(expire);
  }

  /** Whether `forbid` leaves this allowed: a SelfSubjectAccessReview says no where it does not, whatever RBAC says. */
  allows(verb: string, resource: string | undefined): boolean {
    return !this.forbids.some(
      (r) => (r.target.verbs === undefined || r.target.verbs.includes(verb)) && (r.target.resources === undefined || (resource !== undefined && r.target.resources.includes(resource))),
    );
  }

  decide(verb: string, resource: string | undefined, name?: string): FaultDecision {
    const applies = (t: KubeFaultTarget) =>
      (t.verbs === undefined || t.verbs.includes(verb)) &&
      (t.resources === undefined || (resource !== undefined && t.resources.includes(resource))) &&
      (t.names === undefined || (name !== undefined && t.names.includes(name)));
    const hook = this.hooks.findIndex((r) => applies(r.target));
    if (hook >= 0) this.hooks.splice(hook, 1)[0]!.spec();
    const delayMs = this.delays.filter((r) => applies(r.target)).reduce((sum, r) => sum + r.spec, 0);
    if (this.forbids.some((r) => applies(r.target))) return { delayMs, failure: { code: 403 } };
    const denial = this.denials.find((r) => applies(r.target));
    if (denial !== undefined) return { delayMs, failure: { code: 400, ...denial.spec } };
    for (const rule of this.failures) {
      if (!applies(rule.target)) continue;
      const { code, retryAfterSeconds } = rule.spec;
      if (rule.spec.next !== undefined && rule.spec.next > 0) {
        rule.spec.next--;
        return { delayMs, failure: { code, retryAfterSeconds } };
      }
      if (rule.spec.rate !== undefined && this.random() < rule.spec.rate) {
        return { delayMs, failure: { code, retryAfterSeconds } };
      }
    }
    return { delayMs };
  }
}
