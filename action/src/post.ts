// The action's post step, run when the job ends however it ends (post-if: always()). A staged upgrade that did not
// finish, because the job was cancelled, timed out (6 h on hosted runners) or the runner lost the CLI, must leave
// its NodePools held at zero, not at whatever its last wave allowed: `karp-drift pause --held` does exactly that,
// and finds them itself. Anything else, and a staged upgrade that finished, needs nothing.
import * as core from '@actions/core';
import { runCli } from './cli-process.js';

interface Saved {
  command: string;
  connection: string[];
  staged: boolean;
}

/** How long the post step waits for the interrupted run to let go of the cluster lock (its lease lasts 30 s). */
const LOCK_WAIT_MS = 60_000;
const RETRY_MS = 5_000;

export async function run(): Promise<void> {
  const saved = core.getState('invocation');
  if (saved === '') return; // the main step failed on its inputs: nothing ran
  const call = JSON.parse(saved) as Saved;
  const result = core.getState('result');
  if (!call.staged || result === 'succeeded') {
    core.info(
      `karp-drift ${call.command}: nothing to clean up (${call.staged ? 'the staged rollout completed' : 'not a staged upgrade'})`,
    );
    return;
  }
  core.startGroup(
    `karp-drift: leaving the staged rollout paused (${result === '' ? 'the job ended while it ran' : `it ended ${result}`})`,
  );
  try {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const code = await runCli(['pause', '--held', ...call.connection], (line) => process.stdout.write(`${line}\n`));
      if (code === 0) break;
      // 3: the interrupted run still holds the lock while it pauses itself; anything else will not get better here.
      if (code !== 3 || Date.now() > deadline) {
        core.warning(
          `could not leave the staged rollout paused (karp-drift pause --held exited ${code}); check it with: karp-drift status, and hold it with: karp-drift pause`,
          { title: 'karp-drift clean-up' },
        );
        return;
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
    core.info('The staged rollout is paused; continue it with the same upgrade, or release it with: karp-drift resume');
  } finally {
    core.endGroup();
  }
}
