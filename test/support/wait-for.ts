import { runsRemotely } from './gateway-target.js';

/**
 * How long a condition may take by default. A deployed stage stores usage records from its functions'
 * log subscription (`-c usageDelivery=log`), which delivers them seconds after the response.
 */
const DEFAULT_TIMEOUT_MS = runsRemotely ? 30_000 : 5000;

/**
 * Resolves once `condition` holds, polling it: for state the test cannot subscribe to (a usage
 * record written after the response, a counter in the store). Fails after `timeoutMs`, saying so.
 */
export const waitFor = async (
  condition: () => boolean | Promise<boolean>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
