// What the REST handlers share (rest.ts routes and serves reads, rest-write.ts the writes): the store and its faults,
// and the reply every verb returns.
import type { KubeFaults } from './faults.js';
import type { KubeStore } from './registry-store.js';

export interface RestContext {
  store: KubeStore;
  faults: KubeFaults;
  bookmarkIntervalMs: number;
  watchBufferBytes: number;
}

export interface Reply {
  code: number;
  body: string;
  headers?: Record<string, string>;
}
