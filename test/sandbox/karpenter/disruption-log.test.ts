// The simulator's record of drift commands: appended when one starts, ended when its old NodeClaim is gone or it
// fails, capped, and read as commands in flight per NodePool at an instant.
import { describe, expect, it } from 'vitest';
import { DisruptionLog } from '../../../src/sandbox/karpenter/disruption-log.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, second));
const start = (log: DisruptionLog, second: number, nodePool: string, nodeClaim: string, budgetAllowed = 1) =>
  log.started({ time: at(second).toISOString(), nodePool, nodeClaim, node: `ip-${nodeClaim}`, replacements: [], budgetAllowed });

describe('DisruptionLog', () => {
  it('ends a command when its old NodeClaim is gone or it fails, and counts what is in flight per NodePool', () => {
    const log = new DisruptionLog();
    start(log, 0, 'general', 'general-a', 2);
    start(log, 1, 'general', 'general-b', 1);
    start(log, 1, 'canary', 'canary-a');
    log.gone('general-a', at(5));
    log.failed('canary-a', at(6));
    log.gone('default-zzzzz', at(6)); // a NodeClaim no command disrupted
    start(log, 7, 'canary', 'canary-a'); // picked again after the failure: a new record

    expect(log.entries()).toEqual([
      {
        time: '2026-11-23T10:00:00.000Z',
        nodePool: 'general',
        nodeClaim: 'general-a',
        node: 'ip-general-a',
        replacements: [],
        budgetAllowed: 2,
        finished: '2026-11-23T10:00:05.000Z',
      },
      {
        time: '2026-11-23T10:00:01.000Z',
        nodePool: 'general',
        nodeClaim: 'general-b',
        node: 'ip-general-b',
        replacements: [],
        budgetAllowed: 1,
      },
      {
        time: '2026-11-23T10:00:01.000Z',
        nodePool: 'canary',
        nodeClaim: 'canary-a',
        node: 'ip-canary-a',
        replacements: [],
        budgetAllowed: 1,
        failed: '2026-11-23T10:00:06.000Z',
      },
      {
        time: '2026-11-23T10:00:07.000Z',
        nodePool: 'canary',
        nodeClaim: 'canary-a',
        node: 'ip-canary-a',
        replacements: [],
        budgetAllowed: 1,
      },
    ]);
    expect(log.inFlight(at(0))).toEqual(new Map([['general', 1]]));
    expect(log.inFlight(at(4))).toEqual(
      new Map([
        ['general', 2],
        ['canary', 1],
      ]),
    );
    // An end at an instant is no longer in flight at that instant.
    expect(log.inFlight(at(5).toISOString())).toEqual(
      new Map([
        ['general', 1],
        ['canary', 1],
      ]),
    );
    expect(log.inFlight(at(6))).toEqual(new Map([['general', 1]]));
    expect(log.inFlight()).toEqual(
      new Map([
        ['general', 1],
        ['canary', 1],
      ]),
    );
    expect(log.maxInFlight()).toEqual(
      new Map([
        ['general', 2],
        ['canary', 1],
      ]),
    );
  });

  it('does not count an end and a start at the same instant as overlapping', () => {
    const log = new DisruptionLog();
    start(log, 0, 'general', 'general-a');
    log.gone('general-a', at(3));
    start(log, 3, 'general', 'general-b');
    expect(log.maxInFlight()).toEqual(new Map([['general', 1]]));
  });

  it('keeps the last `capacity` records, oldest first, and still ends the open ones it kept', () => {
    const log = new DisruptionLog(3);
    for (let i = 0; i < 7; i++) start(log, i, 'general', `general-${i}`);
    log.gone('general-1', at(10)); // dropped: nothing to end
    log.gone('general-5', at(10));
    const entries = log.entries();
    expect(entries.map((r) => r.nodeClaim)).toEqual(['general-4', 'general-5', 'general-6']);
    expect(entries.map((r) => r.finished)).toEqual([undefined, at(10).toISOString(), undefined]);
    expect(log.inFlight(at(20))).toEqual(new Map([['general', 2]]));
  });
});
