// Keep-alive agents that tunnel through a proxy (HTTP CONNECT), for the Kubernetes API (cluster/client.ts) and the AWS
// SDK's request handler (ami/aws-config.ts).
//
// Why hpagent: it is what @kubernetes/client-node itself uses for a kubeconfig's `proxy-url` (so it is installed
// already), and its agents are plain http.Agent / https.Agent subclasses that only replace createConnection: Node's
// own pool keeps the tunnelled sockets alive between requests (a follow's watches, 100 pages of pods), and the agent's
// TLS options (the cluster's CA, a client certificate, AWS_CA_BUNDLE) apply to the TLS session inside the tunnel. The
// https-proxy-agent family pools through agent-base's bookkeeping and would be two more packages; undici's
// ProxyAgent is a Dispatcher, which neither node:https nor the SDK's NodeHttpHandler takes.
//
// Plain-http targets (the sandbox's AWS endpoint, local emulators) are tunnelled with CONNECT as well, where the AWS
// CLI would send the proxy an absolute-form request: a proxy that allows CONNECT only to port 443 refuses them, and
// NO_PROXY is the way round.
import type { Duplex } from 'node:stream';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions, type RequestOptions } from 'node:https';
import { Agent as HttpAgent, type AgentOptions as HttpAgentOptions, type ClientRequestArgs } from 'node:http';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { ProxyError } from './proxy-error.js';
import type { ProxyChoice } from './select.js';

/** Decides per connection: true sends it directly (NO_PROXY), false through the proxy. */
export type Direct = (host: string, port: string) => boolean;

type Callback = (err: Error | null, stream: Duplex) => void;

export function httpsTunnelAgent(
  proxy: ProxyChoice,
  options: HttpsAgentOptions,
  direct: Direct = () => false,
): HttpsAgent {
  return new HttpsTunnel({ ...options, proxy: proxy.url }, proxy, direct);
}

export function httpTunnelAgent(
  proxy: ProxyChoice,
  options: HttpAgentOptions,
  direct: Direct = () => false,
): HttpAgent {
  return new HttpTunnel({ ...options, proxy: proxy.url }, proxy, direct);
}

class HttpsTunnel extends HttpsProxyAgent {
  constructor(
    options: ConstructorParameters<typeof HttpsProxyAgent>[0],
    private readonly choice: ProxyChoice,
    private readonly direct: Direct,
  ) {
    super(options);
  }
  override createConnection(options: RequestOptions, callback?: Callback): Duplex | null | undefined {
    if (this.direct(String(options.host), String(options.port)))
      return HttpsAgent.prototype.createConnection.call(this, options, callback);
    return super.createConnection(options, tunnelCallback(this.choice, options, callback));
  }
}

class HttpTunnel extends HttpProxyAgent {
  constructor(
    options: ConstructorParameters<typeof HttpProxyAgent>[0],
    private readonly choice: ProxyChoice,
    private readonly direct: Direct,
  ) {
    super(options);
  }
  override createConnection(options: ClientRequestArgs, callback?: Callback): Duplex | null | undefined {
    if (this.direct(String(options.host), String(options.port)))
      return HttpAgent.prototype.createConnection.call(this, options, callback);
    return super.createConnection(options, tunnelCallback(this.choice, options, callback));
  }
}

// hpagent reports a refusal as `Bad response: 407` and an unreachable proxy with the socket's error: both become a
// ProxyError that says which proxy and which variable, so the messages of failures.ts and aws-failures.ts can.
function tunnelCallback(choice: ProxyChoice, options: ClientRequestArgs, callback: Callback | undefined): Callback {
  const proxy = { source: choice.source, shown: choice.shown };
  return (err, stream) => {
    if (!err) return callback?.(null, stream);
    const target = `${String(options.host)}:${String(options.port)}`;
    const status = /^Bad response: (\d+)$/.exec(err.message)?.[1];
    const code = (err as NodeJS.ErrnoException).code;
    const wrapped = status
      ? new ProxyError(
          `the proxy ${proxy.shown} (${proxy.source}) refused the tunnel to ${target}: HTTP ${status}${status === '407' ? ' Proxy Authentication Required' : ''}`,
          proxy,
          'EPROXY',
          { cause: err },
        )
      : new ProxyError(
          `cannot reach the proxy ${proxy.shown} (${proxy.source}) for ${target}: ${code ?? err.message}`,
          proxy,
          code ?? 'EPROXY',
          { cause: err },
        );
    callback?.(wrapped, stream);
  };
}
