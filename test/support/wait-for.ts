/**
 * Resolves once `condition` holds, polling it: for state the test cannot subscribe to (a usage
 * record written after the response, a counter in the store). Fails after `timeoutMs`, saying so.
 */
export const waitFor = async (condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
