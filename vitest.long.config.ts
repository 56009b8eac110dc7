import { defineConfig } from 'vitest/config';

// `npm run test:long`: the scale proofs, one at a time (each uses both cores). The default suite (vitest.config.ts)
// proves the same code paths on a cut of the same shape.
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: ['test/long/**/*.test.ts'],
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
