// Pure: which proxy, if any, a request to a URL goes through, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY as kubectl reads
// them (client-go's http.ProxyFromEnvironment, golang.org/x/net/http/httpproxy) and as the AWS CLI honours them.
// The Kubernetes side puts a kubeconfig cluster's `proxy-url` before all of this (cluster/client.ts).
//
// Both tools agree on the variables: HTTPS_PROXY for https targets, HTTP_PROXY for http ones, the upper-case form first
// (Go's order), NO_PROXY a comma-separated list. They differ on loopback: client-go never proxies `localhost` or a
// loopback address whatever NO_PROXY says, the AWS CLI does unless NO_PROXY names it. `loopback` picks which.
import { isIP } from 'node:net';
import { UsageError } from '../errors.js';

export interface ProxyChoice {
  /** The proxy, with its credentials (they go in Proxy-Authorization, nowhere else). */
  url: URL;
  /** Where it came from: `HTTPS_PROXY`, `https_proxy`, or `proxy-url of cluster "x"`. */
  source: string;
  /** The proxy as messages and -v logs show it: scheme, host and port, never userinfo. */
  shown: string;
}

export type Env = Record<string, string | undefined>;

/** The proxy a request to `target` goes through, or undefined for a direct connection. */
export function proxyFor(target: URL, env: Env, loopback: 'direct' | 'proxy'): ProxyChoice | undefined {
  const proxy = proxyVariable(target.protocol, env);
  if (!proxy) return undefined;
  return bypassesProxy(target.hostname, portOf(target), env, loopback) ? undefined : proxy;
}

/** HTTPS_PROXY (https targets) or HTTP_PROXY (http targets), upper case first; undefined when unset or empty. */
export function proxyVariable(protocol: string, env: Env): ProxyChoice | undefined {
  const names =
    protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy'] : protocol === 'http:' ? ['HTTP_PROXY', 'http_proxy'] : [];
  const name = names.find((n) => (env[n] ?? '') !== '');
  return name === undefined ? undefined : proxyChoice(env[name]!, name);
}

/** Parses a proxy URL; a value without a scheme is an http proxy (`proxy:3128`), as Go and the AWS CLI take it. */
export function proxyChoice(value: string, source: string): ProxyChoice {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch (err) {
    // The value is not echoed: it may hold a password.
    throw new UsageError(`${source} is not a proxy URL`, { cause: err, hint: `set ${source} to http://<host>:<port>` });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: ${url.protocol.slice(0, -1)} proxies are not supported (${shownProxy(url)})`, {
      hint: `use an http:// or https:// proxy in ${source}`,
    });
  }
  return { url, source, shown: shownProxy(url) };
}

export function shownProxy(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** NO_PROXY (then no_proxy) names the host, or the host is loopback and `loopback` is 'direct'. */
export function bypassesProxy(host: string, port: string, env: Env, loopback: 'direct' | 'proxy'): boolean {
  const bare = host
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  if (loopback === 'direct' && (bare === 'localhost' || isLoopback(bare))) return true;
  const noProxy = (env.NO_PROXY ?? '') !== '' ? env.NO_PROXY! : (env.no_proxy ?? '');
  return noProxy
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '')
    .some((entry) => noProxyEntryMatches(entry, bare, port));
}

// httpproxy's matchers: `*` is everything; an IP or a CIDR matches IP hosts; anything else is a domain with an optional
// port, matching the host itself and its subdomains (`.example.com` and `*.example.com` only the subdomains).
function noProxyEntryMatches(entry: string, host: string, port: string): boolean {
  if (entry === '*') return true;
  if (entry.includes('/')) return isIP(host) !== 0 && inCidr(host, entry);
  if (isIP(entry.replace(/^\[(.*)\]$/, '$1')) !== 0) return entry.replace(/^\[(.*)\]$/, '$1') === host;
  const hostPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  let domain = (hostPort?.[1] ?? entry).replace(/^\[(.*)\]$/, '$1');
  const entryPort = hostPort?.[2];
  if (entryPort !== undefined && entryPort !== port) return false;
  if (domain.startsWith('*.')) domain = domain.slice(1);
  return domain.startsWith('.') ? host.endsWith(domain) : host === domain || host.endsWith(`.${domain}`);
}

function portOf(url: URL): string {
  return url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
}

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return ipv6Bits(host) === 1n;
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [network = '', bitsText = ''] = cidr.split('/');
  const family = isIP(network);
  const bits = Number(bitsText);
  if (family === 0 || family !== isIP(host) || !/^\d+$/.test(bitsText)) return false;
  const width = family === 4 ? 32 : 128;
  if (bits > width) return false;
  const value = family === 4 ? ipv4Bits : ipv6Bits;
  const shift = BigInt(width - bits);
  return value(host) >> shift === value(network) >> shift;
}

function ipv4Bits(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(ip: string): bigint {
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups first.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  const text = v4
    ? ip.replace(v4[1]!, ((b) => `${(b >> 16n).toString(16)}:${(b & 0xffffn).toString(16)}`)(ipv4Bits(v4[1]!)))
    : ip;
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}
