// The JSON Schemas of karp-drift's machine-readable output (docs/schemas/v1) agree with the code: they compile under
// ajv's strict mode, their code lists are the code's, and they are strict enough that a changed output fails them.
// The e2e helpers (test/e2e/contracts.ts) check every event and document the e2e tests see against them.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_CODES, STAGED_CHECK_CODES, TEMPLATE_CHECK_CODES } from '../../src/plan/checks.js';
import { STALL_CODES } from '../../src/rollout/blocker.js';
import { FINDING_CODES } from '../../src/gates/health.js';
import { contractErrors, schemaId, schemaOf, type Contract } from '../e2e/contracts.js';

const enumOf = (name: Contract, def: string) =>
  ((schemaOf(name) as { $defs: Record<string, { enum: string[] }> }).$defs[def]!).enum;

const cluster = { context: 'prod', server: 'https://example.invalid', kubeconfigCluster: 'prod', name: 'prod' };
const counts = { name: 'general', nodeClass: 'default', total: 3, onTarget: 3, replaced: 3, remaining: 0, drifted: 0, disrupting: 0, launching: 0, initializing: 0, terminating: 0, done: true };
const done = { type: 'done', time: '2026-12-07T14:09:00.000Z', result: 'succeeded', cluster, durationSeconds: 312, message: 'Rollout complete', nodePools: [counts] };

describe('docs/schemas/v1', () => {
  it('holds one schema per contract, each named by its $id', () => {
    expect(readdirSync(new URL('../../docs/schemas/v1/', import.meta.url)).sort()).toEqual(
      ['events.schema.json', 'plan.schema.json', 'result.schema.json', 'status.schema.json'],
    );
    for (const name of ['plan', 'status', 'events', 'result'] as const) expect((schemaOf(name) as { $id: string }).$id).toBe(schemaId(name));
  });

  it.each<[string, Contract, string, readonly string[]]>([
    ['check', 'plan', 'checkCode', [...CHECK_CODES, ...TEMPLATE_CHECK_CODES, ...STAGED_CHECK_CODES]],
    ['stall', 'events', 'stallCode', STALL_CODES],
    ['health-gate finding', 'events', 'findingCode', FINDING_CODES],
  ])('lists every %s code the code has, and no other', (_what, name, def, codes) => {
    expect(enumOf(name, def)).toEqual([...codes]);
  });

  it.each<[string, Contract, unknown, string[]]>([
    ['a done event', 'events', done, []],
    ['an event of an unknown type', 'events', { ...done, type: 'finished' }, ['/type must be equal to one of the allowed values']],
    ['a field the contract does not name', 'events', { ...done, extra: 1 }, ['/ must NOT have additional properties']],
    ['a count that is not a count', 'events', { ...done, nodePools: [{ ...counts, replaced: -1 }] }, ['/nodePools/0/replaced must be >= 0']],
    ['a time that is not RFC 3339', 'events', { ...done, time: 'yesterday' }, ['/time must match format "date-time"']],
    ['a stall code the code does not have', 'events', { type: 'blocked', time: done.time, stage: 'stall', code: 'STALL-SOMETHING', message: 'm', evidence: [], next: 'n' }, ['/code must be equal to one of the allowed values']],
    [
      'a result document',
      'result',
      { apiVersion: 'karp-drift.io/v1', kind: 'Result', command: 'upgrade', exitCode: 0, result: 'succeeded', nodesReplaced: 3, cluster, done, blocked: [] },
      [],
    ],
  ])('%s', (_name, contract, value, errors) => {
    expect(contractErrors(contract, value).map((e) => e.replace(/ \{.*\}$/, ''))).toEqual(errors);
  });
});
