// NodeRegistrationHealthy against Karpenter's own tests, case for case: kubernetes-sigs/karpenter tag v1.14.1 (commit
// 6e7eab7a), the files
// - pkg/state/nodepoolhealth/suite_test.go: the tracker (the last 4 outcomes, unhealthy from 2 failures);
// - pkg/controllers/nodeclaim/lifecycle/liveness_test.go and registration_test.go: when a timeout sets False and a
//   registration sets True;
// - pkg/controllers/nodepool/registrationhealth/suite_test.go: the reset to Unknown on a generation change;
// and, for the rule before the buffer (v1.4.0–v1.7.x), tag v1.7.0's liveness_test.go and registration_test.go.
// Each row names the `It(...)` it comes from. The controllers' writes are the sandbox's (test/sandbox/karpenter/
// liveness.slow.test.ts); here, the decisions.
import { describe, expect, it } from 'vitest';
import {
  outcomesFor,
  recordLaunch,
  registrationHealth,
  registrationHealthReset,
  withOutcome,
  type LaunchOutcomes,
} from '../../src/karpenter/registration-health.js';

const after = (...outcomes: boolean[]): LaunchOutcomes =>
  outcomes.reduce<boolean[]>((buffer, o) => withOutcome(buffer, o), []);

describe('nodepoolhealth/suite_test.go', () => {
  it.each<[string, LaunchOutcomes, ReturnType<typeof registrationHealth>]>([
    ['should record all concurrent updates correctly (2 false, 2 true: exactly 50%)', after(false, false, true, true), 'Unhealthy'],
    ['should expect status unknown for a new nodePool with empty buffer', after(), 'Unknown'],
    ['should expect status healthy for a nodePool with one true entry', after(true), 'Healthy'],
    ['should expect status unhealthy for a nodePool with two false entries', after(false, false), 'Unhealthy'],
    [
      'should expect status unhealthy for a nodePool with two false entries and one true entry',
      withOutcome(outcomesFor('False'), true),
      'Unhealthy',
    ],
    [
      'should create a copy of the tracker … in case of Dry Run (Healthy, then one false: still healthy)',
      withOutcome(outcomesFor('True'), false),
      'Healthy',
    ],
    [
      '… and the dry run of one more false is unhealthy',
      withOutcome(withOutcome(outcomesFor('True'), false), false),
      'Unhealthy',
    ],
    ['should reset the buffer first when setting status (unhealthy, then SetStatus(Healthy))', outcomesFor('True'), 'Healthy'],
  ])('%s', (_it, outcomes, expected) => {
    expect(registrationHealth(outcomes)).toBe(expected);
  });

  it('keeps the last 4 outcomes: two old failures age out after 4 successes, one is still within the window', () => {
    expect(registrationHealth(after(false, false, true, true, true))).toBe('Healthy');
    expect(after(false, false, true, true, true)).toEqual([false, true, true, true]);
    expect(registrationHealth(after(false, true, false, true, true))).toBe('Healthy');
    expect(registrationHealth(after(true, true, false, true, false))).toBe('Unhealthy');
  });

  it('SetStatus(Unknown) empties the buffer (the AfterEach)', () => {
    expect(outcomesFor('Unknown')).toEqual([]);
    expect(outcomesFor(undefined)).toEqual([]);
  });
});

describe('liveness_test.go and registration_test.go: the condition each outcome writes', () => {
  it.each<[string, LaunchOutcomes, boolean, 'True' | 'False' | 'Unknown' | undefined, 'True' | 'False' | undefined]>([
    // liveness_test.go "should delete the nodeClaim when the Node hasn't registered past the registration timeout":
    // one failure, and the NodePool's condition stays Unknown.
    ['one registration timeout on an empty buffer leaves it Unknown', after(), false, 'Unknown', undefined],
    [
      'should update NodeRegistrationHealthy status condition to False if it was previously set to Unknown and there are >=2 registration failures',
      after(false),
      false,
      'Unknown',
      'False',
    ],
    [
      // The condition True and the buffer hydrated from it ([true]): failures 2 of 3.
      'should update NodeRegistrationHealthy status condition to False if it was previously set to True and there are >=2 registration failures',
      withOutcome(outcomesFor('True'), false),
      false,
      'True',
      'False',
    ],
    ['a third failure leaves a False condition alone', after(false, false), false, 'False', undefined],
    [
      'should add NodeRegistrationHealthy=true on the nodePool if registration succeeds and if it was previously false (an empty buffer)',
      after(),
      true,
      'False',
      'True',
    ],
    [
      'should not add NodeRegistrationHealthy=true on the nodePool if registration succeeds once and if it had previously failed twice in the registrationHealthBuffer',
      after(false, false),
      true,
      'False',
      undefined,
    ],
    ['two more registrations push the failures out of the window: True again', after(false, false, true, true), true, 'False', 'True'],
  ])('%s', (_it, outcomes, registered, current, expected) => {
    const update = recordLaunch(outcomes, registered, current);
    expect(update.condition).toBe(expected);
    expect(update.outcomes).toEqual(withOutcome(outcomes, registered));
  });
});

describe('registrationhealth/suite_test.go: the reset to Unknown', () => {
  const settled = { generation: 1, conditionObservedGeneration: 1, nodeClassObservedGeneration: 1, nodeClassGeneration: 1 };
  it.each([
    [
      "should set NodeRegistrationHealthy status condition on nodePool as Unknown and reset the NodeRegistrationHealthBuffer if the nodeClass observed generation doesn't match with that on nodePool",
      { ...settled, nodeClassGeneration: 2 },
      true,
    ],
    ['should set NodeRegistrationHealthy status condition on nodePool as Unknown if the nodePool is updated', { ...settled, generation: 2 }, true],
    ['should not set NodeRegistrationHealthy status condition on nodePool as Unknown if it is already set to true (or false)', settled, false],
    ['a NodePool without the condition gets it, Unknown', { ...settled, conditionObservedGeneration: undefined }, true],
    ['a NodePool that never recorded its class generation (0, as Go reads it)', { ...settled, nodeClassObservedGeneration: 0 }, true],
  ])('%s', (_it, generations, expected) => {
    expect(registrationHealthReset(generations)).toBe(expected);
  });
});

describe('v1.7.0 liveness_test.go and registration_test.go: before the buffer (unknown-only)', () => {
  it.each<[string, boolean, 'True' | 'False' | 'Unknown' | undefined, 'True' | 'False' | undefined]>([
    ["should delete the nodeClaim when the Node hasn't registered past the registration timeout (Unknown → False)", false, 'Unknown', 'False'],
    ['should not update NodeRegistrationHealthy status condition if it is already set to True', false, 'True', undefined],
    ['a False condition stays False', false, 'False', undefined],
    ['should add NodeRegistrationHealthy=true on the nodePool if registration succeeds and if it was previously false', true, 'False', 'True'],
  ])('%s', (_it, registered, current, expected) => {
    expect(recordLaunch(after(false, false, false), registered, current, 'unknown-only')).toEqual({
      outcomes: [],
      ...(expected ? { condition: expected } : {}),
    });
  });
});
