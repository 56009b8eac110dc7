// The kubeconfig user's credentials, and for an exec plugin (`aws eks get-token`, 15-minute tokens) the plugin run by
// karp-drift itself, so that a 401 can force a new token: the API server may reject a token before its
// expirationTimestamp (clock skew, a revoked session, a plugin that sets no expiry at all).
//
// Why not client-node's ExecAuth: it keeps the ExecCredential in a private `tokenCache` keyed by user name until
// status.expirationTimestamp and has no way to drop it (ExecAuth is not exported, KubeConfig.authenticators is
// private); clearing that field from outside would work with 1.4 and break silently on an upgrade. Instead client.ts
// hands client-node the user without `exec` and registers this class through the public KubeConfig.addAuthenticator,
// which client-node consults for a user none of its own authenticators claims. Every request, ours (request.ts) and
// the generated clients' (api-client.ts), still gets its Authorization header from KubeConfig as before. Running the
// plugin here also gives: one run for concurrent requests (ExecAuth spawns one per request while its cache is empty),
// stdin closed (a plugin that prompts fails instead of hanging), and errors that never quote stdout.
import { spawn } from 'node:child_process';
import type { RequestOptions } from 'node:https';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { credentialFresh, credentialSource, execConfig, parseExecCredential, type CredentialSource, type ExecConfig, type ExecCredential } from './credential-source.js';
import { CredentialsError } from './api-errors.js';

// client-node's Authenticator interface, which its index does not export.
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

export interface CredentialsOptions {
  /** The environment the plugin runs in (its kubeconfig `env` entries added), as kubectl runs it. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  /**
   * --request-timeout: a plugin that has not finished after this long is killed and the request fails (kubectl waits
   * forever; `aws eks get-token` on a network that drops packets to STS would hang the run).
   */
  timeoutMs?: number;
  /** Tests: runs the plugin and resolves with its stdout. */
  run?: (exec: ExecConfig, env: NodeJS.ProcessEnv, timeoutMs: number | undefined) => Promise<string>;
  now?: () => number;
}

export class Credentials implements Authenticator {
  readonly source: CredentialSource;
  /** The exec plugin this class runs, if the user has one (and no static token overriding it). */
  readonly exec: ExecConfig | undefined;
  private credential: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  /** A 401 cleared the credential the plugin is (or was last) run for. */
  private obtainingFor401 = false;
  /** The current credential came from a run a 401 asked for, and no answer has accepted it yet. */
  private untriedFor401 = false;
  private readonly run: NonNullable<CredentialsOptions['run']>;
  private readonly now: () => number;

  constructor(
    private readonly user: User,
    private readonly options: CredentialsOptions = {},
  ) {
    this.source = credentialSource(user);
    this.exec = this.source.kind === 'exec' ? execConfig(user) : undefined;
    this.run = options.run ?? runPlugin;
    this.now = options.now ?? Date.now;
  }

  /** Whether a 401 is worth a new credential: only an exec plugin can give one. */
  get refreshable(): boolean {
    return this.exec !== undefined;
  }

  isAuthProvider(user: User): boolean {
    return this.exec !== undefined && user.name === this.user.name;
  }

  // What client-node's ExecAuth.applyAuthentication sets: the bearer token, or the client certificate and key.
  async applyAuthentication(_user: User, opts: RequestOptions): Promise<void> {
    const credential = await this.current();
    if (credential.clientCertificateData) opts.cert = credential.clientCertificateData;
    if (credential.clientKeyData) opts.key = credential.clientKeyData;
    if (credential.token) opts.headers = { ...opts.headers, Authorization: `Bearer ${credential.token}` };
  }

  /**
   * After a 401 to a request sent with the Authorization header `sent`: runs the plugin again, unless another request
   * already has since that header was current. As client-go's exec authenticator (`maybeRefreshCreds`) does, a burst
   * of 401s (every watch reconnecting at once) thus runs the plugin once, and each request is retried once only, so a
   * plugin that keeps printing a rejected token cannot make a loop. False when there is nothing to refresh.
   */
  async refresh(sent: string | undefined): Promise<boolean> {
    if (!this.exec) return false;
    if (!this.running && this.credential && bearer(this.credential) === sent) {
      // A token the plugin gave in answer to a 401, rejected before any answer accepted it: another run would not
      // help, and requests started with it (the reads go side by side) would each run the plugin again.
      if (this.untriedFor401) return false;
      this.credential = undefined;
      this.obtainingFor401 = true;
    }
    await this.current();
    return true;
  }

  /** An answer other than 401 to a request sent with `sent`: that credential works (a later 401 is news). */
  accepted(sent: string | undefined): void {
    if (this.credential && bearer(this.credential) === sent) this.untriedFor401 = false;
  }

  private async current(): Promise<ExecCredential> {
    if (this.credential && credentialFresh(this.credential, this.now())) return this.credential;
    return (this.running ??= this.obtain().finally(() => (this.running = undefined)));
  }

  private async obtain(): Promise<ExecCredential> {
    const exec = this.exec;
    if (!exec) throw new Error('no exec plugin'); // isAuthProvider never claims such a user
    const started = this.now();
    const env = { ...(this.options.env ?? process.env), ...Object.fromEntries(exec.env.map((e) => [e.name, e.value])) };
    // What kubectl tells the plugin (client-go exec.go): no terminal to prompt on.
    env.KUBERNETES_EXEC_INFO = JSON.stringify({ apiVersion: exec.apiVersion, kind: 'ExecCredential', spec: { interactive: false } });
    let credential: ExecCredential;
    try {
      credential = parseExecCredential(await this.run(exec, env, this.options.timeoutMs));
    } catch (err) {
      throw new CredentialsError(`exec plugin "${exec.command}" ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const until = credential.expiresAt === undefined ? 'no expiry given' : `valid until ${new Date(credential.expiresAt).toISOString()}`;
    this.options.log?.(`ran exec plugin "${exec.command}" for a new credential (${until}) in ${this.now() - started} ms`);
    this.credential = credential;
    this.untriedFor401 = this.obtainingFor401;
    this.obtainingFor401 = false;
    return credential;
  }
}


const bearer = (c: ExecCredential) => (c.token ? `Bearer ${c.token}` : undefined);

export function runPlugin(exec: ExecConfig, env: NodeJS.ProcessEnv, timeoutMs: number | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(exec.command, exec.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not be started: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return reject(new Error(`did not finish within ${timeoutMs! < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs! / 1000)} s`} (--request-timeout) and was stopped${stderr.trim() ? `; its stderr: ${stderr.trim()}` : ''}`));
      if (code === 0) resolve(stdout);
      // Its stderr is the plugin's own explanation ("Error loading SSO Token: … has expired"); stdout may hold a token.
      else reject(new Error(`exited with ${signal ?? `code ${code ?? '?'}`}${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
    });
  });
}
