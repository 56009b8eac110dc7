// Pure: what the kubeconfig user authenticates with, named for messages, and the ExecCredential an exec plugin prints.
// A label never carries a value (no token, no password, no exec env or args: `aws eks get-token --role-arn …` is
// only "aws"), and a plugin's stdout is never quoted: it holds the token, and JSON.parse's SyntaxError quotes its input.
import type { User } from '@kubernetes/client-node';

export type CredentialKind = 'exec' | 'token' | 'client-certificate' | 'basic' | 'auth-provider' | 'none';

export interface CredentialSource {
  kind: CredentialKind;
  /** For messages: `exec plugin "aws" of kubeconfig user "prod"`. */
  label: string;
}

/** users[].user.exec (client.authentication.k8s.io ExecConfig), as far as running it goes. */
export interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
}

/** ExecCredential.status: what a request is sent with, and until when. */
export interface ExecCredential {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** status.expirationTimestamp in ms; none means "until the API server rejects it" (client-go reads it so too). */
  expiresAt?: number;
}

export function execConfig(user: User): ExecConfig | undefined {
  const exec = user.exec as Partial<ExecConfig> | null | undefined;
  if (!exec || typeof exec.command !== 'string' || exec.command === '') return undefined;
  return {
    command: exec.command,
    args: Array.isArray(exec.args) ? exec.args.map(String) : [],
    env: Array.isArray(exec.env) ? exec.env.map((e) => ({ name: String(e.name), value: String(e.value ?? '') })) : [],
    apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1',
  };
}

// In the order client-node lets them win (config.js applyAuthorizationHeader): a static token overrides whatever an
// exec plugin or auth-provider set, and either overrides basic auth; a client certificate sits under all of them.
export function credentialSource(user: User): CredentialSource {
  const of = `kubeconfig user "${user.name}"`;
  const exec = execConfig(user);
  const provider = (user.authProvider as { name?: string } | null | undefined)?.name;
  if (user.token) return { kind: 'token', label: `the static token of ${of}` };
  if (exec) return { kind: 'exec', label: `exec plugin "${exec.command}" of ${of}` };
  if (provider) return { kind: 'auth-provider', label: `auth-provider "${provider}" of ${of}` };
  if (user.username) return { kind: 'basic', label: `the username and password of ${of}` };
  if (user.certData || user.certFile) return { kind: 'client-certificate', label: `the client certificate of ${of}` };
  return { kind: 'none', label: `${of}, which has no credentials` };
}

/** The plugin's stdout as an ExecCredential; errors describe it without quoting it. */
export function parseExecCredential(stdout: string): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`printed no ExecCredential JSON on stdout (${stdout.length} bytes)`);
  }
  const status = (parsed as { status?: Record<string, unknown> } | null)?.status;
  if (!status || typeof status !== 'object') throw new Error('printed an ExecCredential without status');
  const text = (key: string) => (typeof status[key] === 'string' && status[key] !== '' ? status[key] : undefined);
  const token = text('token');
  const clientCertificateData = text('clientCertificateData');
  const clientKeyData = text('clientKeyData');
  if (!token && !clientCertificateData) throw new Error('printed an ExecCredential with neither status.token nor status.clientCertificateData');
  const expiry = text('expirationTimestamp');
  const expiresAt = expiry === undefined ? NaN : Date.parse(expiry);
  return {
    ...(token ? { token } : {}),
    ...(clientCertificateData ? { clientCertificateData } : {}),
    ...(clientKeyData ? { clientKeyData } : {}),
    ...(Number.isFinite(expiresAt) ? { expiresAt } : {}),
  };
}

export function credentialFresh(credential: ExecCredential, now: number): boolean {
  return credential.expiresAt === undefined || credential.expiresAt > now;
}
