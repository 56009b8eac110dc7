// Pure: the error of a tunnel that could not be had (agents.ts makes it), and what to do about it, for the failure
// messages of cluster/failures.ts and ami/aws-failures.ts.
import type { ProxyChoice } from './select.js';

/** The proxy could not be reached, or refused the tunnel. Names the proxy (no credentials) and where it came from. */
export class ProxyError extends Error {
  override name = 'ProxyError';
  constructor(
    message: string,
    /** Without the URL, which may hold credentials. */
    readonly proxy: Pick<ProxyChoice, 'source' | 'shown'>,
    /** The socket error (ECONNREFUSED ...) when the proxy did not answer; EPROXY when it refused. */
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What to do about a ProxyError, for the failure messages. */
export function proxyHint(err: ProxyError, host: string): string {
  // A kubeconfig's proxy-url wins over NO_PROXY (client-go's order): only the kubeconfig can send that one direct.
  const fix = err.proxy.source.startsWith('proxy-url')
    ? `fix or remove the kubeconfig's ${err.proxy.source}`
    : `fix ${err.proxy.source}, or add ${host} to NO_PROXY to go direct`;
  return err.code === 'EPROXY'
    ? `check the proxy's credentials and that it allows CONNECT to ${host}; ${fix}`
    : `check that the proxy is up and reachable from here; ${fix}`;
}
