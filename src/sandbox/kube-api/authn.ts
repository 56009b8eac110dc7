// Bearer-token authentication: the token the server starts with, plus tokens a test accepts and revokes at run time,
// so an exec credential plugin's token (`aws eks get-token`) can be honoured and then stop working mid-run, as an
// EKS token does when it expires early or its session is revoked. Anything else is 401, as kube-apiserver answers.
// Each token authenticates a user (user.Info): the server's own and, unless told otherwise, accepted ones are the
// sandbox's admin, in system:masters (every request allowed, as for an EKS cluster's creator); a test that accepts a
// token for another user gets that user's RBAC (authz.ts). Like kube-apiserver's authenticator, every user it
// authenticates is in system:authenticated.
import { timingSafeEqual } from 'node:crypto';
import type { UserInfo } from './rbac.js';

export type { UserInfo } from './rbac.js';

export const SANDBOX_ADMIN: UserInfo = { name: 'karp-drift-sandbox-admin', groups: ['system:masters'] };

/** Who a request without credentials is (the health and version endpoints answer it). */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export class KubeTokens {
  private readonly tokens = new Map<string, UserInfo>();

  constructor(initial: string) {
    this.tokens.set(initial, SANDBOX_ADMIN);
  }

  /** Honour `token` from now on, as `user` (default: the sandbox's admin). */
  accept(token: string, user: UserInfo = SANDBOX_ADMIN): void {
    this.tokens.set(token, user);
  }

  /** Answer `token` 401 from now on (the server's own token too). */
  revoke(token: string): void {
    this.tokens.delete(token);
  }

  /** The user an Authorization header's bearer token authenticates, or undefined. */
  user(header: string | undefined): UserInfo | undefined {
    const presented = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '');
    let found: UserInfo | undefined;
    // Every token compared in constant time, and all of them: which one matched is not timed either.
    for (const [token, user] of this.tokens) {
      const expected = Buffer.from(token);
      if (presented.length === expected.length && timingSafeEqual(presented, expected)) found = user;
    }
    if (!found) return undefined;
    const groups = found.groups.includes('system:authenticated') ? found.groups : [...found.groups, 'system:authenticated'];
    return { name: found.name, groups };
  }

  /** Whether an Authorization header carries an accepted bearer token. */
  authenticates(header: string | undefined): boolean {
    return this.user(header) !== undefined;
  }
}
