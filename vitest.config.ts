import { defineConfig } from 'vitest/config';

// Two speeds (STYLE.md): `unit` is pure and fast; `slow` starts servers and sandboxes or spawns the built CLI.
// A slow test lives under test/e2e/ or is named *.slow.test.ts.
export default defineConfig({
  test: {
    // As src/main.ts does for the CLI: the AWS SDK's notice that its 2027 releases need Node 22 would print once per
    // test file that builds a client under Node 20 (README "Requirements" says why karp-drift keeps Node 20).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/**/*.slow.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/e2e/**/*.test.ts', 'test/**/*.slow.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
