// deploy/upgrade-cronjob.yaml as the tests read it: its documents, the CronJob, and the container's args.
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface PodSpec {
  serviceAccountName: string;
  restartPolicy: string;
  terminationGracePeriodSeconds: number;
  securityContext: Record<string, unknown>;
  containers: Array<{ name: string; image: string; args: string[]; command?: string[]; securityContext: Record<string, unknown> }>;
}

export interface JobSpec {
  backoffLimit: number;
  activeDeadlineSeconds: number;
  podFailurePolicy: {
    rules: Array<{
      action: string;
      onExitCodes?: { containerName: string; operator: string; values: number[] };
      onPodConditions?: Array<{ type: string }>;
    }>;
  };
  template: { spec: PodSpec };
}

export interface CronJob extends Manifest {
  spec: {
    timeZone: string;
    schedule: string;
    concurrencyPolicy: string;
    startingDeadlineSeconds: number;
    successfulJobsHistoryLimit: number;
    failedJobsHistoryLimit: number;
    jobTemplate: { spec: JobSpec };
  };
}

export const manifests = (path: string): Manifest[] =>
  loadAll(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as Manifest[];

export const cronJob = (): CronJob => manifests('deploy/upgrade-cronjob.yaml').find((m) => m.kind === 'CronJob') as CronJob;

/** The karp-drift container's args: the command line each tick runs. */
export const cronJobArgs = (): string[] => cronJob().spec.jobTemplate.spec.template.spec.containers[0]!.args;

/** `args` with the value of `--window` replaced (the e2e tests run the CronJob's command in a window of their own). */
export function withWindow(args: readonly string[], window: string): string[] {
  const at = args.indexOf('--window');
  if (at < 0) throw new Error('the CronJob runs no --window');
  return args.map((a, i) => (i === at + 1 ? window : a));
}
