// What every AWS client karp-drift builds (SSM and EC2 in resolve.ts, EKS in eks-cluster.ts) is given: only what the
// user passed. Everything else (credentials, region, AWS_ENDPOINT_URL[_SERVICE], retries) comes from the SDK's default
// chain; passing `endpoint` here would override the endpoint variables the sandbox and local emulators rely on.
//
// The exceptions are the ones the AWS CLI honours and the SDK for JavaScript does not: HTTPS_PROXY / HTTP_PROXY /
// NO_PROXY, and AWS_CA_BUNDLE. The endpoint is the SDK's to resolve, so the request handler's agents decide per
// connection, by the host it opens, whether NO_PROXY sends it direct (an AWS_ENDPOINT_URL_* on 127.0.0.1 included).
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { UsageError } from '../errors.js';
import { httpsTunnelAgent, httpTunnelAgent } from '../proxy/agents.js';
import { bypassesProxy, proxyVariable } from '../proxy/select.js';
import type { Logger } from '../logger.js';

export interface AwsOptions {
  region?: string;
  profile?: string;
  /** --request-timeout for each request (the SDK's own retries still apply within it). */
  requestTimeoutMs?: number;
  /** Stops every call in flight or still to come (a plan whose cluster read failed while its AMIs were resolved). */
  signal?: AbortSignal;
}

export function awsClientConfig(aws: AwsOptions, env: NodeJS.ProcessEnv = process.env, log?: Logger) {
  const handler = {
    ...(aws.requestTimeoutMs !== undefined && {
      requestTimeout: aws.requestTimeoutMs,
      connectionTimeout: Math.min(aws.requestTimeoutMs, 10_000),
    }),
    ...awsAgents(env, log),
  };
  return {
    ...(aws.region !== undefined && { region: aws.region }),
    ...(aws.profile !== undefined && { profile: aws.profile }),
    ...(Object.keys(handler).length > 0 && { requestHandler: handler }),
  };
}

// The SDK's NodeHttpHandler takes an agent per scheme; it keeps them alive (keepAlive, 50 sockets, as its own default)
// and destroys them with the client.
function awsAgents(env: NodeJS.ProcessEnv, log: Logger | undefined) {
  const ca = caBundle(env);
  const https = proxyVariable('https:', env);
  const http = proxyVariable('http:', env);
  const pool = { keepAlive: true, maxSockets: 50 };
  // The AWS CLI proxies loopback endpoints too, unless NO_PROXY names them.
  const direct = (host: string, port: string) => bypassesProxy(host, port, env, 'proxy');
  for (const proxy of [https, http]) if (proxy) log?.debug(`AWS ${proxy === https ? 'https' : 'http'} endpoints through the proxy ${proxy.shown} (${proxy.source}) unless NO_PROXY names them`);
  if (ca) log?.debug(`AWS: trusting the CA(s) of AWS_CA_BUNDLE ${env.AWS_CA_BUNDLE ?? ''} too`);
  const tls = { ...pool, ...(ca && { ca: [...rootCertificates, ca] }) };
  return {
    ...(https ? { httpsAgent: httpsTunnelAgent(https, tls, direct) } : ca && { httpsAgent: tls }),
    ...(http && { httpAgent: httpTunnelAgent(http, pool, direct) }),
  };
}

// AWS_CA_BUNDLE, as the AWS CLI reads it: a PEM file of the CA(s) that sign the endpoints' certificates, typically a
// TLS-inspecting proxy's. Added to Node's own roots here, so AWS itself stays trusted where the proxy lets it through.
function caBundle(env: NodeJS.ProcessEnv): string | undefined {
  const path = env.AWS_CA_BUNDLE ?? '';
  if (path === '') return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new UsageError(`AWS_CA_BUNDLE=${path}: cannot read it (${why})`, {
      cause: err,
      hint: 'point AWS_CA_BUNDLE at a readable PEM file of the CA certificate(s) to trust, or unset it',
    });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`AWS_CA_BUNDLE=${path}: no PEM certificate in it`, {
      hint: 'point AWS_CA_BUNDLE at a PEM file (-----BEGIN CERTIFICATE-----), or unset it',
    });
  }
  return pem;
}

/** The region a client resolved (--region, AWS_REGION, the profile's), or exit 2 saying how to give one. */
export async function clientRegion(client: { config: { region: () => Promise<string> } }): Promise<string> {
  try {
    return await client.config.region();
  } catch (err) {
    throw new UsageError('no AWS region: pass --region or set AWS_REGION (or a region in the AWS profile)', {
      cause: err,
    });
  }
}
