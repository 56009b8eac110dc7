import { defineConfig } from 'vitest/config';

// Two speeds (STYLE.md): `unit` is pure and fast; `slow` starts sandboxes and spawns the built CLI.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/e2e/**', 'test/sandbox/**', 'test/**/*.slow.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/e2e/**/*.test.ts', 'test/sandbox/**/*.test.ts', 'test/**/*.slow.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
