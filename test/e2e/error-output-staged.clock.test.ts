// The API server gone just as one request of a staged upgrade is sent: its holds, their Events, its apply. A staged
// run rides an outage out for as long as its cluster lock holds (30 s from its last renewal: docs/staged-rollouts.md "When the API
// server stops answering…"), then ends exit 1 saying it cannot reach the API server, in karp-drift's words (it said
// "internal error" and printed the transport's stack once). Each case waits out the lock: a wall-clock proof, run by
// `npm run test:long` beside the scale proof; the one-shot commands' cases are in error-output.test.ts.
import { describe, expect, it } from 'vitest';
import { karpDrift, scenario } from './cli-sandbox.js';

describe('the API server gone at each write of a staged upgrade', () => {
  const staged = ['upgrade', '--to', '1.30', '--yes', '--waves', '1,100%', '--soak', '0s'];
  it.each(['patch:nodepools', 'create:events', 'patch:ec2nodeclasses'])('at %s: rides the outage out for the lock’s 30 s, then exit 1 in our words', async (at) => {
    const sandbox = await scenario('default');
    const [verb = '', resource = ''] = at.split(':');
    sandbox.kube.faults.beforeNext({ verbs: [verb], resources: [resource] }, () => void sandbox.kube.outage('refuse'));
    const run = await karpDrift(sandbox, [...staged, '-v'], 120_000);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/^error: cannot reach the Kubernetes API at https:\/\/127\.0\.0\.1:\d+ \(context "karp-drift-sandbox-default"\)/m);
    const out = `${run.stdout}${run.stderr}`;
    expect(out).not.toMatch(/HTTP-Code:|Unknown API Status Code|Headers:|Body: "|internal error|The operation was aborted/);
    expect(out).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    expect(run.stderr).toMatch(/^ {2}next: /m);
  });
});
