// The generated API clients (CustomObjectsApi for server-side apply, AuthorizationV1Api for the RBAC preflight), built
// as KubeConfig.makeApiClient builds them, on a transport that does what request.ts does for our own GETs: a 401 gets
// the exec plugin run again (credentials.ts) and the request sent once more with the new token. The generated
// clients take an HttpLibrary in their configuration for exactly this (client-go wraps its RoundTripper the same
// way for exec plugins). A request still rejected, or credentials that cannot be had, fail as a RuntimeFailure that
// says which credentials and what next (failures.ts); the callers pass a KarpDriftError through as it is.
import {
  IsomorphicFetchHttpLibrary,
  ServerConfiguration,
  createConfiguration,
  wrapHttpLibrary,
  type ApiConstructor,
  type ApiException,
  type ApiType,
  type RequestContext,
  type ResponseContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import type { Cluster } from './client.js';
import { clusterFailure, type ApiCall } from './failures.js';
import { ApiError, CredentialsError, type StatusBody } from './request.js';
import { retrying } from './retry.js';

type Connection = Pick<Cluster, 'kc' | 'context' | 'server' | 'credentials' | 'log' | 'agent' | 'proxy' | 'lease'>;

export function apiClient<T extends ApiType>(connection: Connection, type: ApiConstructor<T>): T {
  const http = new IsomorphicFetchHttpLibrary();
  const authenticate = async (request: RequestContext) => {
    try {
      await connection.kc.applySecurityAuthentication(request);
      // client-node's per-call agent knows the kubeconfig's proxy-url but not HTTPS_PROXY/NO_PROXY: behind a proxy,
      // the cluster's shared agent, which tunnels through the one loadCluster chose.
      if (connection.proxy && connection.agent) request.setAgent(connection.agent);
    } catch (err) {
      throw clusterFailure(new CredentialsError(err instanceof Error ? err.message : String(err), { cause: err }), call(request), connection);
    }
  };
  // One -v line per request, as request.ts logs: method, path and query (never a header), status, duration.
  const logged = async (request: RequestContext): Promise<ResponseContext> => {
    const started = Date.now();
    // A transport failure (refused, reset, TLS) is said in our words here, where the connection is known: the callers
    // turn the generated client's ApiException into theirs (apiErrorFrom) and pass a KarpDriftError through. Under a
    // staged run's cluster lock it is first tried again as every call of the run is (retry.ts LOCKED_RETRY), until
    // the lock lapses: the answers (429, 5xx) are the callers' to retry, and these are the only two.
    const transport = () => http.send(request).toPromise();
    const { lease } = connection;
    const response = await (lease ? retrying(transport, lease.retry, lease.lost) : transport()).catch((err: unknown) => {
      throw clusterFailure(err, call(request), connection);
    });
    const url = new URL(request.getUrl());
    connection.log?.(`${request.getHttpMethod().toString()} ${url.pathname}${url.search} ${response.httpStatusCode} in ${Date.now() - started} ms`);
    return response;
  };
  const send = async (request: RequestContext): Promise<ResponseContext> => {
    const sent = request.getHeaders().Authorization;
    const response = await logged(request);
    if (response.httpStatusCode !== 401) {
      connection.credentials.accepted(sent);
      return response;
    }
    const status = await statusOf(response);
    if (connection.credentials.refreshable) {
      connection.log?.(`${call(request).doing}: 401 Unauthorized; running ${connection.credentials.source.label} again for a new token`);
      try {
        await connection.credentials.refresh(sent);
      } catch (err) {
        throw clusterFailure(err, call(request), connection);
      }
      await authenticate(request);
      const again = await logged(request);
      if (again.httpStatusCode !== 401) {
        connection.credentials.accepted(request.getHeaders().Authorization);
        return again;
      }
    }
    throw clusterFailure(new ApiError(401, status, undefined), call(request), connection);
  };
  const auth: SecurityAuthentication = { getName: () => 'kubeconfig', applySecurityAuthentication: authenticate };
  return new type(
    createConfiguration({
      baseServer: new ServerConfiguration(connection.server, {}),
      authMethods: { default: auth },
      httpApi: wrapHttpLibrary({ send }),
    }),
  );
}

function call(request: RequestContext): ApiCall {
  const method = request.getHttpMethod().toString();
  const path = new URL(request.getUrl()).pathname;
  return { doing: `sending ${method} ${path}`, verb: method.toLowerCase(), resource: path };
}

async function statusOf(response: ResponseContext): Promise<StatusBody> {
  try {
    return JSON.parse(await response.body.text()) as StatusBody;
  } catch {
    return { reason: 'Unauthorized' };
  }
}

/**
 * A generated client's ApiException as our ApiError: its code, the Status it carried and its Retry-After. Its own
 * message is a dump (`HTTP-Code: 403 / Message: Unknown API Status Code! / Body: … / Headers: …`) that no message or
 * cause of ours may carry.
 */
export function apiErrorFrom(err: ApiException<unknown>): ApiError {
  const headers = (err.headers ?? {}) as Record<string, string | undefined>;
  const after = Number(headers['retry-after'] ?? headers['Retry-After']);
  return new ApiError(err.code, statusBodyOf(err.body), Number.isFinite(after) ? after * 1000 : undefined);
}

function statusBodyOf(body: unknown): StatusBody {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return { message: body.slice(0, 200) };
    }
  }
  return body != null && typeof body === 'object' ? body : {};
}
