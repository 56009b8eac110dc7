// `karp-drift demo`: the main job on the embedded sandbox. It starts a scenario in-process, points this process at
// it exactly as a user's shell would be pointed at EKS (a kubeconfig and the AWS SDK's endpoint variables), and runs
// `upgrade --to <control plane> --yes` through the normal path, with the normal output and exit code.
import type { CommandContext } from './context.js';
import { InterruptedError, StalledError, TimeoutError } from '../errors.js';
import type { DemoOptions } from './options.js';
import { startSandbox } from '../sandbox/sandbox.js';
import { stagedFlags, type StagedRequest } from '../stages/request.js';
import { DEFAULT_GATES } from '../gates/request.js';
import { upgrade } from './upgrade.js';

/** The demo's default pace: the default scenario's rollout (≈ 8 simulated minutes) plays in a few seconds. */
const DEMO_SPEED = 120;

export async function demo(options: DemoOptions, ctx: CommandContext): Promise<void> {
  const sandbox = await startSandbox({ scenario: options.scenario, speed: options.speed ?? DEMO_SPEED });
  const saved = new Map(Object.keys(sandbox.env).map((k) => [k, process.env[k]]));
  try {
    // The AWS SDK reads its endpoints and credentials from the environment: set them for this process only.
    Object.assign(process.env, sandbox.env);
    const st = options.staged?.defaulted === true ? scenarioStages(sandbox.scenario.name, options.staged) : options.staged;
    const stages = st
      ? stagedFlags(st)
          .map((f) => ` ${f}`)
          .join('')
      : '';
    if (ctx.globals.output !== 'json' && !ctx.globals.quiet) {
      ctx.io.err(
        `${sandbox.summary}\nRunning: karp-drift upgrade --to ${sandbox.scenario.controlPlaneVersion}${stages} --yes\n\n`,
      );
    }
    const upgradeOptions = {
      ...options.upgradeTo(sandbox.scenario.controlPlaneVersion),
      timeoutMs: options.timeoutMs,
      stallTimeoutMs: options.stallTimeoutMs,
      ...(st ? { staged: st } : {}),
    };
    await upgrade(upgradeOptions, {
      ...ctx,
      env: { ...ctx.env, ...sandbox.env },
      globals: {
        ...ctx.globals,
        kubeconfig: sandbox.kubeconfigPath,
        context: undefined,
        region: sandbox.env.AWS_REGION,
        profile: undefined,
      },
    });
  } catch (err) {
    throw withDemoHint(err, sandbox.scenario.name, sandbox.scenario.controlPlaneVersion);
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await sandbox.stop();
  }
}

/**
 * The demo without stage flags runs the default rollout (each target AMI on one node first, gated), as `upgrade`
 * does; on `bad-ami`, whose newest AMI is bad, the gates catch it on those first nodes and the demo rolls them back
 * (exit 6), unless the flags asked for another --on-failure.
 */
function scenarioStages(scenario: string, defaults: StagedRequest): StagedRequest {
  if (scenario !== 'bad-ami' || defaults.gates?.onFailure !== DEFAULT_GATES.onFailure) return defaults;
  return { ...defaults, gates: { ...(defaults.gates ?? DEFAULT_GATES), onFailure: 'rollback' } };
}

/**
 * A stall, timeout or interrupt says how to follow the rollout again; the demo's sandbox stops with the demo, so
 * point at a sandbox that stays up instead.
 */
function withDemoHint(err: unknown, scenario: string, to: string): unknown {
  const hint = `the demo's sandbox stopped with it; to look at this rollout yourself, run one that stays up: eval "$(karp-drift sandbox --detach --scenario ${scenario})", then karp-drift upgrade --to ${to}`;
  for (const Kind of [StalledError, TimeoutError, InterruptedError]) {
    if (err instanceof Kind) return new Kind(err.message, { cause: err.cause, hint });
  }
  return err;
}
