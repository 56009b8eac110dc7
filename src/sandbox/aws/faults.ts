// Injected AWS failures, changed at run time by tests and scenarios. Rates draw from a seeded generator so a
// scenario replays the same throttling pattern.
import { seededRandom } from '../scenarios/random.js';

export type AwsService = 'ssm' | 'ec2' | 'eks';

/** Which calls a fault applies to; an omitted field matches every service or operation. */
export interface FaultTarget {
  service?: AwsService;
  /** The API operation name, e.g. `GetParameters`, `DescribeImages`. */
  operation?: string;
}

export type ThrottleFault = FaultTarget & ({ next: number } | { rate: number });
export type SlowFault = FaultTarget & { delayMs: number };

/** What to do with one call, in order: wait, then fail or answer. */
export interface FaultDecision {
  delayMs: number;
  failure?: 'throttle' | 'access-denied';
}

interface Rule<T> {
  target: FaultTarget;
  spec: T;
}

export class AwsFaults {
  private throttles: Array<Rule<{ next?: number; rate?: number }>> = [];
  private denials: Array<Rule<null>> = [];
  private slows: Array<Rule<{ delayMs: number }>> = [];
  private readonly random: () => number;

  constructor(seed = 1) {
    const draws = seededRandom(seed, 'aws-faults');
    this.random = () => draws.next();
  }

  /** Throttle the next N matching calls, or a fraction (0–1) of them until cleared. */
  throttle(fault: ThrottleFault): void {
    const { service, operation } = fault;
    this.throttles.push({
      target: { service, operation },
      spec: 'next' in fault ? { next: fault.next } : { rate: fault.rate },
    });
  }

  denyAccess(target: FaultTarget = {}): void {
    this.denials.push({ target, spec: null });
  }

  slow(fault: SlowFault): void {
    const { service, operation, delayMs } = fault;
    this.slows.push({ target: { service, operation }, spec: { delayMs } });
  }

  clear(): void {
    this.throttles = [];
    this.denials = [];
    this.slows = [];
  }

  decide(service: AwsService, operation: string): FaultDecision {
    const applies = (t: FaultTarget) =>
      (t.service === undefined || t.service === service) && (t.operation === undefined || t.operation === operation);
    const delayMs = this.slows.filter((r) => applies(r.target)).reduce((sum, r) => sum + r.spec.delayMs, 0);
    if (this.denials.some((r) => applies(r.target))) return { delayMs, failure: 'access-denied' };
    for (const rule of this.throttles) {
      if (!applies(rule.target)) continue;
      if (rule.spec.next !== undefined && rule.spec.next > 0) {
        rule.spec.next--;
        return { delayMs, failure: 'throttle' };
      }
      if (rule.spec.rate !== undefined && this.random() < rule.spec.rate) return { delayMs, failure: 'throttle' };
    }
    return { delayMs };
  }
}
