// faults.badAmi resolved against the seeded AMI catalog (scenarios/bad-ami.ts): which images are the bad release.
import { describe, expect, it } from 'vitest';
import { FAMILIES, type Arch } from '../../../src/ami/families.js';
import { ssmParameterPath } from '../../../src/ami/parameters.js';
import { amiCatalog } from '../../../src/sandbox/aws/catalog.js';
import { seriesReleases } from '../../../src/sandbox/aws/lookup.js';
import { badAmiFault } from '../../../src/sandbox/scenarios/bad-ami.js';
import { classImages } from '../../../src/sandbox/scenarios/node-classes.js';
import { parseScenario, type Scenario } from '../../../src/sandbox/scenarios/schema.js';

function scenario(
  faults: string,
  classes = '[{ name: default, family: al2023, kubernetesVersion: "1.29" }]',
): Scenario {
  return parseScenario(
    [
      'name: test',
      'controlPlaneVersion: "1.30"',
      'seed: 12',
      `nodeClasses: ${classes}`,
      'nodePools: [{ name: general, nodeClass: default, nodes: 2, arch: [amd64, arm64] }]',
      `faults: { badAmi: ${faults} }`,
    ].join('\n'),
    'test.yaml',
  );
}

const catalog = amiCatalog({ seed: 12 });
const resolved = (s: Scenario) =>
  badAmiFault(
    s,
    catalog,
    s.nodeClasses.map((_, i) => classImages(s, i, catalog)),
  );
const releasesOf = (family: 'al2023' | 'bottlerocket') =>
  seriesReleases(catalog, { family, kubernetesVersion: '1.30', arch: 'amd64', variant: 'standard' });

describe('badAmiFault', () => {
  it("makes the newest release of the control plane's minor bad, every image SSM recommends for it: what upgrade --to 1.30 pins", () => {
    const fault = resolved(scenario('{ symptom: crash-loop }'))!;
    const recommended = (Object.entries(FAMILIES.al2023.variants) as Array<[Arch, readonly string[]]>).flatMap(
      ([arch, variants]) =>
        variants.map(
          (variant) =>
            catalog.parameters.get(
              ssmParameterPath({
                family: 'al2023',
                kubernetesVersion: '1.30',
                arch,
                variant: variant as 'standard',
                release: 'latest',
              }),
            )!.value,
        ),
    );
    expect(fault).toEqual({ symptom: 'crash-loop', imageIds: new Set(recommended), afterSeconds: 60 });
    expect(fault.imageIds.has(releasesOf('al2023').at(-2)!.imageId)).toBe(false);
  });

  it('takes a named release (Bottlerocket with or without its v), only for the classes named, and the delay given', () => {
    const classes =
      '[{ name: default, family: al2023, kubernetesVersion: "1.29" }, { name: br, family: bottlerocket, kubernetesVersion: "1.29" }]';
    const older = releasesOf('bottlerocket').at(-2)!;
    const fault = resolved(
      scenario(`{ symptom: not-ready, release: v${older.release}, nodeClasses: [br], afterSeconds: 5 }`, classes),
    )!;
    expect(fault.nodeClasses).toEqual(new Set(['br']));
    expect(fault.afterSeconds).toBe(5);
    expect(fault.imageIds.has(older.imageId)).toBe(true);
    expect(
      [...fault.imageIds].every((id) => catalog.images.get(id)?.name.startsWith(`bottlerocket-aws-k8s-1.30`)),
    ).toBe(true);
  });

  it('says which releases exist when the named one does not', () => {
    const known = [
      ...new Set(
        catalog.releases.filter((r) => r.family === 'al2023' && r.kubernetesVersion === '1.30').map((r) => r.release),
      ),
    ];
    expect(() => resolved(scenario('{ symptom: crash-loop, release: v20990101 }'))).toThrow(
      `faults.badAmi.release: the AMI catalog has no al2023 1.30 release v20990101 (it has: ${known.join(', ')})`,
    );
  });

  it("refuses a bad release the class's nodes already run: it reaches only nodes launched from it", () => {
    const newest = releasesOf('al2023').at(-1)!.release;
    expect(() =>
      resolved(scenario('{ symptom: crash-loop }', '[{ name: default, family: al2023, kubernetesVersion: "1.30" }]')),
    ).toThrow(
      `faults.badAmi.release: the nodes of nodeClass "default" already run release ${newest}, and a bad AMI reaches only nodes launched from it`,
    );
  });

  it('is nothing without the fault', () => {
    const s = scenario('{ symptom: crash-loop }');
    expect(resolved({ ...s, faults: {} })).toBeUndefined();
  });
});
