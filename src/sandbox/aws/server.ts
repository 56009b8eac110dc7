// One plain-HTTP server on 127.0.0.1 that answers as SSM, EC2 and EKS, so the sandbox exports the same URL in
// AWS_ENDPOINT_URL_SSM, AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL_EKS and the real SDK clients reach it unchanged.
// Requests are told apart by protocol: SSM's JSON 1.1 carries `X-Amz-Target: AmazonSSM.<Op>`, EC2's query protocol a
// form `Action`, EKS's REST-JSON DescribeCluster is `GET /clusters/{name}`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { amiCatalog, type AmiCatalogOptions } from './catalog.js';
import { ec2Fault, ec2Reply } from './ec2.js';
import { describeClusterName, eksDescribeCluster, eksFault, type EksCluster } from './eks.js';
import { AwsFaults, type AwsService } from './faults.js';
import { ssmError, ssmFault, ssmReply } from './ssm.js';
import type { AmiCatalog, AwsCallContext, AwsReply } from './types.js';

export interface AwsEndpointsOptions extends AmiCatalogOptions {
  /** A prepared catalog; otherwise one is generated from the catalog options. */
  catalog?: AmiCatalog;
  /** Default 0: a free port. */
  port?: number;
  /** Used when a request carries no SigV4 credential scope (default us-east-1). */
  region?: string;
  /** The clock deprecation is judged by (default: the catalog's `asOf`, so answers never change with the date). */
  now?: () => Date;
  faultSeed?: number;
  /** The EKS clusters DescribeCluster knows (more can be pushed onto `clusters` later). */
  clusters?: EksCluster[];
}

export interface AwsRequestRecord {
  service: AwsService | 'unknown';
  operation: string;
  region: string;
  /** The decoded input: SSM's JSON body, EC2's form fields without Action and Version, or EKS's `{ name }` from the path. */
  params: Record<string, unknown>;
  status: number;
  errorCode?: string;
}

export interface AwsEndpoints {
  url: string;
  catalog: AmiCatalog;
  faults: AwsFaults;
  /** Live: DescribeCluster answers from what this holds when the request arrives. */
  clusters: EksCluster[];
  requests: AwsRequestRecord[];
  stop(): Promise<void>;
}

// SigV4: `Authorization: AWS4-HMAC-SHA256 Credential=AKID/20240917/us-west-2/ssm/aws4_request, ...`.
const CREDENTIAL_SCOPE = /Credential=[^/]+\/\d{8}\/([^/]+)\/[^/]+\/aws4_request/;

interface Call {
  service: AwsService | 'unknown';
  operation: string;
  params: Record<string, unknown>;
  answer(): AwsReply;
  fault(failure: 'throttle' | 'access-denied'): AwsReply;
}

function classify(
  catalog: AmiCatalog,
  clusters: readonly EksCluster[],
  req: IncomingMessage,
  body: string,
  ctx: AwsCallContext,
): Call {
  const cluster = describeClusterName(req.method, req.url);
  if (cluster !== undefined) {
    return {
      service: 'eks',
      operation: 'DescribeCluster',
      params: { name: cluster },
      answer: () => eksDescribeCluster(clusters, cluster, ctx),
      fault: (f) => eksFault(f, cluster, ctx),
    };
  }
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string' && target.startsWith('AmazonSSM.')) {
    const operation = target.slice('AmazonSSM.'.length);
    let input: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(body || '{}');
      if (parsed != null && typeof parsed === 'object' && !Array.isArray(parsed))
        input = parsed as Record<string, unknown>;
    } catch {
      input = undefined;
    }
    const params = input ?? {};
    return {
      service: 'ssm',
      operation,
      params,
      answer: () =>
        input
          ? ssmReply(catalog, operation, input, ctx)
          : ssmError('SerializationException', 'Start of structure or map found where not expected.', ctx),
      fault: (failure) => ssmFault(failure, operation, params, ctx),
    };
  }
  const form = new URLSearchParams(new URL(req.url ?? '/', 'http://localhost').search);
  for (const [key, value] of new URLSearchParams(body)) form.append(key, value);
  const action = form.get('Action');
  const params = Object.fromEntries([...form].filter(([key]) => key !== 'Action' && key !== 'Version'));
  if (action != null) {
    return {
      service: 'ec2',
      operation: action,
      params,
      answer: () => ec2Reply(catalog, form, ctx),
      fault: (f) => ec2Fault(f, action, ctx),
    };
  }
  const unknown = () =>
    ssmError('UnknownOperationException', 'Neither an X-Amz-Target header nor an Action parameter was sent.', ctx);
  return { service: 'unknown', operation: '', params, answer: unknown, fault: unknown };
}

export async function startAwsEndpoints(options: AwsEndpointsOptions = {}): Promise<AwsEndpoints> {
  const catalog = options.catalog ?? amiCatalog(options);
  const faults = new AwsFaults(options.faultSeed);
  const requests: AwsRequestRecord[] = [];
  const clusters = options.clusters ?? [];
  const now = options.now ?? (() => catalog.asOf);
  const stopping = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await text(req);
    const region = CREDENTIAL_SCOPE.exec(req.headers.authorization ?? '')?.[1] ?? options.region ?? 'us-east-1';
    const ctx: AwsCallContext = { region, requestId: randomUUID(), now: now(), accountId: catalog.accountId };
    const call = classify(catalog, clusters, req, body, ctx);
    const decision = call.service === 'unknown' ? { delayMs: 0 } : faults.decide(call.service, call.operation);
    if (decision.delayMs > 0) await sleep(decision.delayMs, undefined, { signal: stopping.signal });
    const reply = decision.failure ? call.fault(decision.failure) : call.answer();
    requests.push({
      service: call.service,
      operation: call.operation,
      region,
      params: call.params,
      status: reply.status,
      ...(reply.errorCode ? { errorCode: reply.errorCode } : {}),
    });
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (stopping.signal.aborted) return;
      res.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    catalog,
    faults,
    clusters,
    requests,
    // Idempotent; closes keep-alive and in-flight (slowed) connections instead of waiting for them.
    stop: () =>
      (stopped ??= new Promise<void>((resolve, reject) => {
        stopping.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      })),
  };
}
