import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyChoice, proxyFor } from '../../src/proxy/select.js';

describe('bypassesProxy: NO_PROXY as client-go (httpproxy) reads it', () => {
  it.each([
    // entry, host, port, bypassed
    ['*', 'ssm.us-west-2.amazonaws.com', '443', true],
    ['example.com', 'example.com', '443', true],
    ['example.com', 'api.example.com', '443', true],
    ['example.com', 'notexample.com', '443', false],
    ['.example.com', 'api.example.com', '443', true],
    ['.example.com', 'example.com', '443', false],
    ['*.example.com', 'api.example.com', '443', true],
    ['*.example.com', 'example.com', '443', false],
    ['EXAMPLE.com', 'Api.Example.COM', '443', true],
    ['example.com:6443', 'api.example.com', '6443', true],
    ['example.com:6443', 'api.example.com', '443', false],
    ['10.0.0.5', '10.0.0.5', '443', true],
    ['10.0.0.5', '10.0.0.6', '443', false],
    ['10.0.0.0/8', '10.20.30.40', '443', true],
    ['10.0.0.0/8', '11.0.0.1', '443', false],
    ['10.0.0.0/8', 'ten.example.com', '443', false],
    ['192.168.1.0/24', '192.168.1.255', '443', true],
    ['192.168.1.0/24', '192.168.2.1', '443', false],
    ['fd00::/8', 'fd12::1', '443', true],
    ['fd00::/8', '[fe80::1]', '443', false],
    ['::1', '[::1]', '443', true],
    ['127.0.0.1:8080', '127.0.0.1', '8080', true],
    ['127.0.0.1:8080', '127.0.0.1', '9090', false],
    [' foo.com , .eks.amazonaws.com ', 'abc.gr7.us-west-2.eks.amazonaws.com', '443', true],
    ['', 'example.com', '443', false],
  ])('NO_PROXY=%j, host %s:%s → %s', (entry, host, port, bypassed) => {
    expect(bypassesProxy(host, port, { NO_PROXY: entry }, 'proxy')).toBe(bypassed);
  });

  it('reads no_proxy when NO_PROXY is unset or empty, NO_PROXY first', () => {
    expect(bypassesProxy('a.example.com', '443', { no_proxy: 'example.com' }, 'proxy')).toBe(true);
    expect(bypassesProxy('a.example.com', '443', { NO_PROXY: '', no_proxy: 'example.com' }, 'proxy')).toBe(true);
    expect(bypassesProxy('a.example.com', '443', { NO_PROXY: 'other.com', no_proxy: 'example.com' }, 'proxy')).toBe(
      false,
    );
  });

  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['[::1]', true],
    ['10.0.0.1', false],
    ['kube.example.com', false],
  ])('loopback %s: client-go goes direct (%s), the AWS CLI proxies', (host, direct) => {
    expect(bypassesProxy(host, '443', {}, 'direct')).toBe(direct);
    expect(bypassesProxy(host, '443', {}, 'proxy')).toBe(false);
  });
});

describe('proxyFor: which variable applies', () => {
  const env = {
    HTTPS_PROXY: 'http://user:secret@proxy.corp:3128',
    HTTP_PROXY: 'proxy.corp:8080',
    NO_PROXY: '.internal',
  };
  it.each([
    ['https://ssm.us-west-2.amazonaws.com/', 'HTTPS_PROXY', 'http://proxy.corp:3128'],
    ['http://127.0.0.1:4566/', 'HTTP_PROXY', 'http://proxy.corp:8080'],
    ['https://api.internal:6443/', undefined, undefined],
  ])('%s → %s %s', (target, source, shown) => {
    const choice = proxyFor(new URL(target), env, 'proxy');
    expect(choice && { source: choice.source, shown: choice.shown }).toEqual(source && { source, shown });
  });

  it('takes the upper-case variable first, the lower-case one when it is unset', () => {
    expect(
      proxyFor(new URL('https://x.com'), { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' }, 'proxy')?.source,
    ).toBe('HTTPS_PROXY');
    expect(proxyFor(new URL('https://x.com'), { https_proxy: 'http://b:2' }, 'proxy')?.shown).toBe('http://b:2');
    expect(proxyFor(new URL('https://x.com'), { HTTP_PROXY: 'http://a:1' }, 'proxy')).toBeUndefined();
  });

  it('keeps the credentials for the tunnel but never shows them', () => {
    const choice = proxyChoice('http://user:p%40ss@proxy.corp:3128', 'HTTPS_PROXY');
    expect(choice.url.username).toBe('user');
    expect(choice.shown).toBe('http://proxy.corp:3128');
  });

  it.each([
    ['socks5://proxy.corp:1080', 'HTTPS_PROXY: socks5 proxies are not supported (socks5://proxy.corp:1080)'],
    ['http://user:secret@[bad', 'HTTPS_PROXY is not a proxy URL'],
  ])('refuses %s without printing it', (value, message) => {
    expect(() => proxyChoice(value, 'HTTPS_PROXY')).toThrow(message);
  });
});
