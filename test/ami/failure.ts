// The error an AMI resolution must fail with, for the tests that expect one.
import { KarpDriftError } from '../../src/errors.js';

/** The KarpDriftError `promise` rejects with (any other error is rethrown; success fails the test). */
export async function failure(promise: Promise<unknown>): Promise<KarpDriftError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KarpDriftError) return err;
    throw err;
  }
  throw new Error('expected resolution to fail');
}
