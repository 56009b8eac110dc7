// The dependency warnings the CLI drops (cli/warnings.ts): Node 24's DEP0169 about the bundled node-fetch's
// url.parse(), in every form process.emitWarning takes it; every other warning still prints.
import { describe, expect, it } from 'vitest';
import { isDroppedWarning } from '../../src/cli/warnings.js';

describe('isDroppedWarning', () => {
  it.each<[string, unknown[], boolean]>([
    ["Node's own call: (message, type, code)", ['`url.parse()` behavior is not standardized', 'DeprecationWarning', 'DEP0169'], true],
    ['(message, { type, code })', ['`url.parse()` …', { type: 'DeprecationWarning', code: 'DEP0169' }], true],
    ['an Error with the code', [Object.assign(new Error('url.parse'), { code: 'DEP0169' })], true],
    ['another deprecation', ['Buffer() is deprecated', 'DeprecationWarning', 'DEP0005'], false],
    ['a warning with no code', ['something', 'Warning'], false],
    ['an experimental feature', ['The Fetch API is experimental', 'ExperimentalWarning'], false],
  ])('%s', (_name, args, dropped) => {
    expect(isDroppedWarning(...(args as [unknown, unknown?, unknown?]))).toBe(dropped);
  });
});
