import { defineConfig } from 'vitest/config';

// Two speeds (STYLE.md): `unit` is pure and fast; `slow` starts servers and sandboxes or spawns the built CLI.
// A slow test lives under test/e2e/ or is named *.slow.test.ts.
export default defineConfig({
  test: {
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
