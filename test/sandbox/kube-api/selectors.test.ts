import { describe, expect, it } from 'vitest';
import {
  fieldSelectorMatcher,
  labelSelectorMatcher,
  parseFieldSelector,
} from '../../../src/sandbox/kube-api/selectors.js';
import { ApiStatusError, type KubeObject } from '../../../src/sandbox/kube-api/types.js';

const labeled = (labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n', labels },
});

const drifted = labeled({ 'karpenter.sh/nodepool': 'default', 'karpenter.sh/disrupted': 'true', gen: '3' });

describe('labelSelectorMatcher', () => {
  it.each([
    ['karpenter.sh/nodepool=default', true],
    ['karpenter.sh/nodepool==default', true],
    ['karpenter.sh/nodepool!=default', false],
    ['karpenter.sh/nodepool in (gpu, default)', true],
    ['karpenter.sh/nodepool notin (gpu,default)', false],
    ['karpenter.sh/disrupted', true],
    ['!karpenter.sh/disrupted', false],
    ['missing!=x', true],
    ['missing in (x)', false],
    ['karpenter.sh/nodepool=default,!missing,karpenter.sh/disrupted in (true)', true],
    ['gen>2', true],
    ['gen<3', false],
  ])('%s matches: %s', (selector, expected) => {
    expect(labelSelectorMatcher(selector)?.(drifted)).toBe(expected);
  });

  it('treats an empty selector as everything', () => {
    expect(labelSelectorMatcher('')).toBeUndefined();
  });

  it.each([['a b c'], ['-bad=x'], ['key=va lue']])('refuses %j with 400 BadRequest', (selector) => {
    expect(() => labelSelectorMatcher(selector)).toThrow(ApiStatusError);
    try {
      labelSelectorMatcher(selector);
    } catch (err) {
      expect(err).toMatchObject({ code: 400, reason: 'BadRequest' });
      expect((err as Error).message).toMatch(/^unable to parse requirement: /);
    }
  });
});

describe('field selectors', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'shop' },
    spec: { nodeName: 'ip-10-0-1-17', hostNetwork: false },
    status: { phase: 'Running' },
  };

  it.each([
    ['spec.nodeName=ip-10-0-1-17', true],
    ['spec.nodeName!=ip-10-0-1-17', false],
    ['metadata.namespace==shop,status.phase=Running', true],
    ['spec.hostNetwork=false', true],
    ['spec.nodeName=', false],
  ])('pods %s matches: %s', (selector, expected) => {
    expect(fieldSelectorMatcher(parseFieldSelector(selector, 'pods'))?.(pod)).toBe(expected);
  });

  it('reads event fields, source meaning source.component', () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'NodePool', name: 'default', uid: 'u-1' },
      reason: 'DisruptionBlocked',
      type: 'Normal',
      source: { component: 'karpenter' },
    } as KubeObject;
    const selector = 'involvedObject.kind=NodePool,involvedObject.uid=u-1,reason=DisruptionBlocked,source=karpenter';
    expect(fieldSelectorMatcher(parseFieldSelector(selector, 'events'))?.(event)).toBe(true);
  });

  it('answers an unsupported field as kube-apiserver does', () => {
    expect(() => parseFieldSelector('spec.nodeName=x', 'nodes')).toThrow('field label not supported: spec.nodeName');
    expect(() => parseFieldSelector('spec.providerID=x', 'nodeclaims')).toThrow(
      'field label not supported: spec.providerID',
    );
  });
});
