import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { builtInScenarioNames, loadScenario } from '../../../src/sandbox/scenarios/load.js';
import { parseScenario, ScenarioError } from '../../../src/sandbox/scenarios/schema.js';

// The smallest valid scenario; each bad case edits a copy as a YAML author would, into shapes the types forbid.
type Items = [Record<string, unknown>, ...Array<Record<string, unknown>>];
interface Editable {
  [key: string]: unknown;
  nodeClasses: Items;
  nodePools: Items;
  workloads: Items;
}
const base = (): Editable => ({
  name: 'test',
  controlPlaneVersion: '1.30',
  nodeClasses: [{ name: 'default', family: 'al2023', kubernetesVersion: '1.29' }],
  nodePools: [{ name: 'general', nodeClass: 'default', nodes: 2 }],
  workloads: [{ name: 'web', nodePool: 'general', replicas: 2 }],
});
const edit = (change: (s: Editable) => void): string => {
  const s = base();
  change(s);
  return dump(s);
};

function problemsOf(yaml: string): string[] {
  try {
    parseScenario(yaml, 'test.yaml');
    return [];
  } catch (err) {
    if (err instanceof ScenarioError) return err.problems;
    throw err;
  }
}

describe('parseScenario', () => {
  it.each(builtInScenarioNames())(
    'parses the built-in scenario %s, headed by a comment saying what it shows',
    (name) => {
      const scenario = loadScenario(name);
      expect(scenario.name).toBe(name);
      expect(scenario.description).not.toBe('');
      // One line of `sandbox --help` at 80 columns: 2 + the longest name (23) + 2 + the summary.
      expect(scenario.summary).toMatch(/^.{10,53}$/);
      const text = readFileSync(new URL(`../../../scenarios/${name}.yaml`, import.meta.url), 'utf8');
      expect(text).toMatch(/^# \S/);
    },
  );

  it('ships the built-ins the sandbox documents', () => {
    expect(builtInScenarioNames()).toEqual([
      'ami-not-found',
      'bad-ami',
      'bad-ami-launch-fails',
      'bad-ami-never-ready',
      'bad-ami-never-registers',
      'bad-ami-not-ready',
      'budget-blocked',
      'crash-loop',
      'default',
      'do-not-disrupt',
      'do-not-disrupt-duration',
      'flaky-api',
      'gitops-owned',
      'large',
      'launch-failure',
      'pdb-blocked',
      'reference',
      'staged',
      'unschedulable',
    ]);
  });

  it('applies the defaults', () => {
    const s = parseScenario(dump(base()), 'test.yaml');
    expect(s).toMatchObject({
      description: '',
      karpenterVersion: '1.14.1',
      speed: 60,
      seed: 1,
      clusterName: 'sandbox',
      timing: {
        driftDetectionSeconds: 5,
        launchSeconds: 60,
        registerSeconds: [30, 90],
        initializeSeconds: 10,
        podStartSeconds: 5,
        podScheduleSeconds: 1,
        registrationTimeoutMinutes: 15,
        disruptionPollSeconds: 10,
      },
      faults: {},
    });
    expect(s.nodeClasses[0]).toEqual({
      name: 'default',
      family: 'al2023',
      kubernetesVersion: '1.29',
      pin: 'id',
      fieldManager: 'kubectl',
    });
    expect(s.nodePools[0]).toEqual({
      name: 'general',
      nodeClass: 'default',
      nodes: 2,
      arch: ['amd64'],
      gpu: false,
      doNotDisruptNodes: 0,
      fieldManager: 'kubectl',
    });
    expect(s.workloads[0]).toEqual({
      name: 'web',
      namespace: 'default',
      nodePool: 'general',
      replicas: 2,
      doNotDisrupt: false,
      crashLooping: false,
      daemonSet: false,
      pinnedToNode: false,
    });
  });

  it('fills the defaults of a partly given timing and fault', () => {
    const s = parseScenario(
      edit((s) => {
        s.timing = { launchSeconds: 5 };
        s.faults = { launchFailures: { nodePool: 'general' } };
      }),
      'test.yaml',
    );
    expect(s.timing).toMatchObject({ launchSeconds: 5, driftDetectionSeconds: 5 });
    expect(s.faults.launchFailures).toEqual({ nodePool: 'general', count: 1, reason: 'InsufficientCapacityError' });
  });

  it('reads a bad AMI with only its symptom: the release, classes and delay are resolved when the sandbox starts', () => {
    const s = parseScenario(
      edit((s) => (s.faults = { badAmi: { symptom: 'not-ready' } })),
      'test.yaml',
    );
    expect(s.faults.badAmi).toEqual({ symptom: 'not-ready' });
  });

  it.each<[string, string, string[]]>([
    [
      'a NodePool naming a missing EC2NodeClass',
      edit((s) => s.nodePools.push({ name: 'gpu', nodeClass: 'gpu', nodes: 1 })),
      ['nodePools[1].nodeClass: no nodeClass named "gpu"'],
    ],
    [
      'a workload naming a missing NodePool',
      edit((s) => (s.workloads[0].nodePool = 'nope')),
      ['workloads[0].nodePool: no nodePool named "nope"'],
    ],
    [
      'an unquoted version, which YAML reads as a number',
      dump(base()).replace("controlPlaneVersion: '1.30'", 'controlPlaneVersion: 1.30'),
      ['controlPlaneVersion: must be a quoted string such as "1.30"'],
    ],
    [
      'a version the catalog has no AMIs for',
      edit((s) => (s.nodeClasses[0].kubernetesVersion = '1.27')),
      ['nodeClasses[0].kubernetesVersion: must be a Kubernetes version the sandbox publishes AMIs for (1.28–1.36)'],
    ],
    [
      'a missing field and a misspelt one',
      edit((s) => {
        s.nodePools[0].nodeclass = s.nodePools[0].nodeClass;
        delete s.nodePools[0].nodeClass;
      }),
      ['nodePools[0].nodeClass: required', 'nodePools[0].nodeclass: unknown field'],
    ],
    [
      'an unknown AMI family',
      edit((s) => (s.nodeClasses[0].family = 'ubuntu')),
      [
        'nodeClasses[0].family: must be one of al2, al2023, bottlerocket, windows2019, windows2022, windows2025, not the text "ubuntu"',
      ],
    ],
    [
      'a family without AMIs for the version',
      edit((s) => {
        s.controlPlaneVersion = '1.33';
        s.nodeClasses[0] = { name: 'default', family: 'al2', kubernetesVersion: '1.33' };
      }),
      [
        'nodeClasses[0].kubernetesVersion: al2 has no EKS-optimized AMIs for Kubernetes 1.33: 1.32 was the last version with AL2 AMIs (Karpenter rejects the alias with UnsupportedAlias)',
      ],
    ],
    [
      'nodes newer than the control plane',
      edit((s) => (s.nodeClasses[0].kubernetesVersion = '1.31')),
      ['nodeClasses[0].kubernetesVersion: nodes on 1.31 would be newer than the control plane (1.30)'],
    ],
    [
      "a release named in another family's format",
      edit((s) => (s.nodeClasses[0].release = '1.20.4')),
      ['nodeClasses[0].release: al2023 releases are named like "v20240917" (or use latest)'],
    ],
    [
      'a Karpenter version that is not one',
      edit((s) => (s.karpenterVersion = 'latest')),
      ['karpenterVersion: "latest" is not a version such as "1.14.1"'],
    ],
    [
      'a Karpenter older than NodePools',
      edit((s) => (s.karpenterVersion = '0.31.4')),
      [
        'karpenterVersion: Karpenter 0.31.4 predates NodePools and NodeClaims; the sandbox runs 0.32–0.37 (v1beta1) and 1.x (v1)',
      ],
    ],
    [
      'a Karpenter too old for the control plane',
      edit((s) => {
        s.karpenterVersion = '0.37.8';
        s.controlPlaneVersion = '1.31';
      }),
      [
        "karpenterVersion: Karpenter 0.37.8 does not support Kubernetes 1.31 (needs 1.0.5 or later, per Karpenter's compatibility matrix)",
      ],
    ],
    [
      'v1 fields under a v1beta1 Karpenter',
      edit((s) => {
        s.karpenterVersion = '0.37.8';
        s.nodeClasses[0].pin = 'alias';
        s.nodePools[0].budgets = [{ nodes: '0', reasons: ['Drifted'] }];
        s.nodePools[0].terminationGracePeriod = '24h';
      }),
      [
        'nodeClasses[0].pin: alias terms need Karpenter 1.0 or later (karpenterVersion is 0.37.8)',
        'nodePools[0].terminationGracePeriod: needs Karpenter 1.0 or later (karpenterVersion is 0.37.8)',
        'nodePools[0].budgets[0].reasons: needs Karpenter 1.0 or later (karpenterVersion is 0.37.8)',
      ],
    ],
    [
      'a pinned Windows alias',
      edit((s) => {
        s.nodeClasses[0] = {
          name: 'default',
          family: 'windows2022',
          kubernetesVersion: '1.29',
          pin: 'alias',
          release: '2024.09.17',
        };
      }),
      ['nodeClasses[0].release: windows2022 aliases cannot be pinned: only windows2022@latest exists'],
    ],
    [
      'an alias for a family the control plane version has no AMIs of',
      edit((s) => {
        s.controlPlaneVersion = '1.33';
        s.nodeClasses[0] = { name: 'default', family: 'al2', kubernetesVersion: '1.32', pin: 'alias' };
      }),
      [
        'nodeClasses[0].pin: the alias resolves against the control plane (1.33): al2 has no EKS-optimized AMIs for Kubernetes 1.33: 1.32 was the last version with AL2 AMIs (Karpenter rejects the alias with UnsupportedAlias)',
      ],
    ],
    [
      'architectures the family or instance type lacks',
      edit((s) => {
        s.nodeClasses.push({ name: 'windows', family: 'windows2022', kubernetesVersion: '1.29' });
        s.nodePools[0] = { name: 'general', nodeClass: 'windows', nodes: 2, arch: ['amd64', 'arm64'] };
        s.nodePools.push({ name: 'gpu', nodeClass: 'default', nodes: 1, arch: ['arm64', 'arm64'], gpu: true });
      }),
      [
        'nodePools[0].arch[1]: windows2022 has no arm64 AMIs',
        'nodePools[1].arch[1]: "arm64" is listed twice',
        'nodePools[1].arch: GPU pools run g5.xlarge, an amd64 instance type: arch must be [amd64]',
      ],
    ],
    [
      'one EC2NodeClass for GPU and non-GPU pools',
      edit((s) => s.nodePools.push({ name: 'gpu', nodeClass: 'default', nodes: 1, gpu: true })),
      ['nodePools[1].gpu: nodeClass "default" also serves non-GPU pools; give GPU pools their own EC2NodeClass'],
    ],
    [
      'budgets the CRD would refuse',
      edit((s) => {
        s.nodePools[0].budgets = [{ nodes: 0 }, { nodes: '10%', schedule: '@daily' }, { nodes: '150%' }];
      }),
      [
        'nodePools[0].budgets[0].nodes: must be a quoted string such as "10%" or "0"',
        'nodePools[0].budgets[2].nodes: must be a count or a percentage such as "10%"',
      ],
    ],
    [
      'a schedule without a duration',
      edit((s) => (s.nodePools[0].budgets = [{ nodes: '0', schedule: '@daily' }])),
      ['nodePools[0].budgets[0]: schedule and duration must be set together'],
    ],
    [
      'more do-not-disrupt nodes than nodes',
      edit((s) => (s.nodePools[0].doNotDisruptNodes = 3)),
      ["nodePools[0].doNotDisruptNodes: more than the pool's 2 nodes"],
    ],
    [
      'duplicate names',
      edit((s) => {
        s.nodeClasses.push({ ...s.nodeClasses[0] });
        s.nodePools.push({ ...s.nodePools[0] });
        s.workloads.push({ ...s.workloads[0] });
      }),
      [
        'nodeClasses[1].name: duplicate nodeClass name "default"',
        'nodePools[1].name: duplicate nodePool name "general"',
        'workloads[1].name: duplicate workload "web" in namespace "default"',
      ],
    ],
    [
      'replicas missing, and replicas on a DaemonSet',
      edit((s) => {
        delete s.workloads[0].replicas;
        s.workloads.push({ name: 'agent', nodePool: 'general', replicas: 2, daemonSet: true });
      }),
      [
        'workloads[0].replicas: required unless daemonSet is true',
        'workloads[1].replicas: a DaemonSet runs one pod per node of its pool: remove replicas',
      ],
    ],
    [
      'a bad percentage (cross-references, such as a PDB with both limits, wait until every field has its shape)',
      edit((s) => {
        s.workloads[0].pdb = { maxUnavailable: 1, minAvailable: 1 };
        s.workloads.push({ name: 'api', nodePool: 'general', replicas: 1, pdb: { minAvailable: '50' } });
      }),
      ['workloads[1].pdb.minAvailable: must be a whole number or a percentage such as "50%"'],
    ],
    [
      'a PDB with both limits',
      edit((s) => (s.workloads[0].pdb = { maxUnavailable: 1, minAvailable: 1 })),
      ['workloads[0].pdb: set exactly one of maxUnavailable and minAvailable'],
    ],
    [
      'pinned DaemonSet pods, and a pinned pod given a hostname',
      edit((s) => {
        s.workloads.push({ name: 'agent', nodePool: 'general', daemonSet: true, pinnedToNode: true });
        s.workloads.push({
          name: 'debug',
          nodePool: 'general',
          replicas: 1,
          pinnedToNode: true,
          nodeSelector: { 'kubernetes.io/hostname': 'ip-10-0-1-1' },
        });
      }),
      [
        'workloads[1].pinnedToNode: pinned pods are bare pods, without a controller: not a DaemonSet',
        "workloads[2].nodeSelector: pinnedToNode sets kubernetes.io/hostname to each pod's node",
      ],
    ],
    [
      'pods for a pool without nodes',
      edit((s) => (s.nodePools[0].nodes = 0)),
      ['workloads[0].nodePool: nodePool "general" has no nodes to run 2 pods on'],
    ],
    [
      'faults out of range (and, once they are in range, naming what does not exist)',
      edit((s) => {
        s.faults = {
          launchFailures: { nodePool: 'gpu' },
          neverRegisters: { nodePool: 'gpu' },
          amiNotFound: { nodeClass: 'gpu' },
          apiErrors: { rate: 0.1, status: 404 },
          watchDrops: { everySeconds: 0 },
        };
      }),
      [
        'faults.apiErrors.status: must be 500 or 429',
        'faults.watchDrops.everySeconds: must be more than 0',
      ],
    ],
    [
      'faults naming what does not exist',
      edit((s) => {
        s.faults = {
          launchFailures: { nodePool: 'gpu' },
          neverRegisters: { nodePool: 'gpu' },
          amiNotFound: { nodeClass: 'gpu' },
        };
      }),
      [
        'faults.launchFailures.nodePool: no nodePool named "gpu"',
        'faults.neverRegisters.nodePool: no nodePool named "gpu"',
        'faults.amiNotFound.nodeClass: no nodeClass named "gpu"',
      ],
    ],
    [
      'a bad AMI without a symptom, or with one the sandbox does not know, and values out of range',
      edit((s) => {
        s.faults = { badAmi: { release: '', nodeClasses: [], afterSeconds: -1, reboots: true } };
      }),
      [
        'faults.badAmi.release: is empty',
        'faults.badAmi.symptom: required',
        'faults.badAmi.nodeClasses: lists nothing',
        'faults.badAmi.afterSeconds: must be at least 0',
        'faults.badAmi.reboots: unknown field',
      ],
    ],
    [
      'a bad AMI symptom that is not one',
      edit((s) => (s.faults = { badAmi: { symptom: 'slow' } })),
      ['faults.badAmi.symptom: must be one of never-registers, never-ready, not-ready, crash-loop, launch-fails, not the text "slow"'],
    ],
    [
      'a bad AMI naming missing or repeated classes, a delay for a symptom without one, and a release in the wrong format',
      edit((s) => {
        s.faults = {
          badAmi: {
            symptom: 'crash-loop',
            nodeClasses: ['default', 'gpu', 'default'],
            afterSeconds: 30,
            release: '1.20.4',
          },
        };
      }),
      [
        'faults.badAmi.nodeClasses[1]: no nodeClass named "gpu"',
        'faults.badAmi.nodeClasses[2]: "default" is listed twice',
        'faults.badAmi.afterSeconds: only the not-ready symptom waits: remove it for crash-loop',
        'faults.badAmi.release: al2023 releases are named like "v20240917"',
      ],
    ],
    [
      'a bad AMI for a family that publishes none for the control plane',
      edit((s) => {
        s.controlPlaneVersion = '1.33';
        s.nodeClasses[0].family = 'al2';
        s.nodeClasses[0].kubernetesVersion = '1.32';
        s.faults = { badAmi: { symptom: 'not-ready' } };
      }),
      [
        'faults.badAmi: the control plane is on 1.33: al2 has no EKS-optimized AMIs for Kubernetes 1.33: 1.32 was the last version with AL2 AMIs (Karpenter rejects the alias with UnsupportedAlias)',
      ],
    ],
    [
      'a register range upside down',
      edit((s) => (s.timing = { registerSeconds: [90, 30] })),
      ['timing.registerSeconds: the range must be [low, high]'],
    ],
    ['a document that is not a mapping', '- a\n- b\n', ['(document): must be a mapping, not a list']],
  ])('rejects %s', (_title, yaml, expected) => {
    expect(problemsOf(yaml)).toEqual(expected);
  });

  it('names the source and lists every problem in its message', () => {
    const yaml = edit((s) => {
      s.nodePools[0].nodeClass = 'gpu';
      s.workloads[0].nodePool = 'nope';
    });
    expect(() => parseScenario(yaml, 'my.yaml')).toThrow(
      'scenario my.yaml is invalid:\n  nodePools[0].nodeClass: no nodeClass named "gpu"\n  workloads[0].nodePool: no nodePool named "nope"',
    );
  });

  it('reports YAML it cannot read', () => {
    expect(problemsOf('name: [unclosed')[0]).toMatch(/^\(document\): not valid YAML: /);
  });
});

describe('loadScenario', () => {
  it('lists the built-ins when the name is unknown', () => {
    expect(() => loadScenario('nope')).toThrow(
      'no built-in scenario named "nope" (built-in: ami-not-found, bad-ami, bad-ami-launch-fails, bad-ami-never-ready, bad-ami-never-registers, bad-ami-not-ready, budget-blocked, crash-loop, default, do-not-disrupt, do-not-disrupt-duration, flaky-api, gitops-owned, large, launch-failure, pdb-blocked, reference, staged, unschedulable)',
    );
  });

  it('reads a path, and says when there is no such file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-scenario-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'mine.yml');
    writeFileSync(file, dump({ ...base(), name: 'mine' }));
    expect(loadScenario(file).name).toBe('mine');
    expect(() => loadScenario(join(dir, 'missing.yaml'))).toThrow(
      `cannot read scenario ${join(dir, 'missing.yaml')}: no such file`,
    );
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, dump({ ...base(), nodes: 3 }));
    expect(() => loadScenario(bad)).toThrow(`scenario ${bad} is invalid:\n  nodes: unknown field`);
  });

  it('gives each bad-ami-* built-in the bad-ami scenario with its own symptom', () => {
    const badAmi = loadScenario('bad-ami');
    expect(badAmi.faults).toEqual({ badAmi: { symptom: 'crash-loop' } });
    for (const symptom of ['never-registers', 'never-ready', 'launch-fails', 'not-ready'] as const) {
      const variant = loadScenario(`bad-ami-${symptom}`);
      expect(variant).toEqual({
        ...badAmi,
        name: `bad-ami-${symptom}`,
        description: variant.description,
        summary: variant.summary,
        faults: { badAmi: { symptom } },
      });
      expect(variant.description).not.toBe(badAmi.description);
      expect(variant.summary).not.toBe(badAmi.summary);
    }
  });

  it('applies a file to the built-in it extends as a JSON merge patch, then checks the result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karp-drift-scenario-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    // Mappings merge key by key, null removes a key, a list replaces the built-in's whole.
    const mine = loadScenario(
      write(
        'mine.yaml',
        [
          'extends: bad-ami',
          'name: mine',
          'seed: 7',
          'nodePools: [{ name: canary, nodeClass: default, nodes: 1 }]',
          'workloads: [{ name: web, nodePool: canary, replicas: 2 }]',
          'faults: { badAmi: { symptom: never-ready }, slowDrain: { podTerminationSeconds: 30 } }',
        ].join('\n'),
      ),
    );
    expect(mine).toMatchObject({ name: 'mine', seed: 7, controlPlaneVersion: '1.30', speed: 60 });
    expect(mine.nodePools.map((p) => `${p.name}:${p.nodes}`)).toEqual(['canary:1']);
    expect(mine.faults).toEqual({ badAmi: { symptom: 'never-ready' }, slowDrain: { podTerminationSeconds: 30 } });
    expect(loadScenario(write('none.yaml', 'extends: bad-ami\nname: none\nfaults: { badAmi: null }')).faults).toEqual({});
    // A built-in that extends another: the chain is applied in turn.
    expect(loadScenario(write('chain.yaml', 'extends: bad-ami-launch-fails\nname: chain')).faults).toEqual({
      badAmi: { symptom: 'launch-fails' },
    });

    const nope = write('nope.yaml', 'extends: nope\nname: x');
    expect(() => loadScenario(nope)).toThrow(`scenario ${nope} is invalid:\n  extends: no built-in scenario named "nope"`);
    const list = write('list.yaml', 'extends: [bad-ami]\nname: x');
    expect(() => loadScenario(list)).toThrow(`scenario ${list} is invalid:\n  extends: must name a built-in scenario`);
    const broken = write('broken.yaml', 'extends: bad-ami\nname: broken\nfaults: { badAmi: { symptom: slow } }');
    expect(() => loadScenario(broken)).toThrow(
      `scenario ${broken} is invalid:\n  faults.badAmi.symptom: must be one of`,
    );
  });
});
