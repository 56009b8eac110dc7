// The sandbox's bearer tokens: its own, plus what a test accepts, each answered 401 once revoked.
import { describe, expect, it } from 'vitest';
import { KubeTokens } from '../../../src/sandbox/kube-api/authn.js';

describe('KubeTokens', () => {
  it('accepts its own token and accepted ones until revoked; nothing else', () => {
    const tokens = new KubeTokens('sandbox-token');
    tokens.accept('plugin-token-1');
    expect(['Bearer sandbox-token', 'bearer plugin-token-1', 'Bearer plugin-token-2', 'Bearer ', 'Basic c2FuZGJveA==', undefined].map((h) => tokens.authenticates(h))).toEqual([true, true, false, false, false, false]);
    tokens.revoke('plugin-token-1');
    tokens.accept('plugin-token-2');
    tokens.revoke('sandbox-token');
    expect(['Bearer sandbox-token', 'Bearer plugin-token-1', 'Bearer plugin-token-2'].map((h) => tokens.authenticates(h))).toEqual([false, false, true]);
  });
});
