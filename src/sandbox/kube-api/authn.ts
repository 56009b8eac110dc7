// Bearer-token authentication: the token the server starts with, plus tokens a test accepts and revokes at run time,
// so an exec credential plugin's token (`aws eks get-token`) can be honoured and then stop working mid-run, as an
// EKS token does when it expires early or its session is revoked. Anything else is 401, as kube-apiserver answers.
import { timingSafeEqual } from 'node:crypto';

export class KubeTokens {
  private readonly tokens = new Set<string>();

  constructor(initial: string) {
    this.tokens.add(initial);
  }

  /** Honour `token` from now on. */
  accept(token: string): void {
    this.tokens.add(token);
  }

  /** Answer `token` 401 from now on (the server's own token too). */
  revoke(token: string): void {
    this.tokens.delete(token);
  }

  /** Whether an Authorization header carries an accepted bearer token. */
  authenticates(header: string | undefined): boolean {
    const presented = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '');
    let ok = false;
    // Every token compared in constant time, and all of them: which one matched is not timed either.
    for (const token of this.tokens) {
      const expected = Buffer.from(token);
      if (presented.length === expected.length && timingSafeEqual(presented, expected)) ok = true;
    }
    return ok;
  }
}
