/**
 * Makes `count` calls, `concurrency` of them in flight at a time (each worker starts its next call as
 * its last one ends), and returns what they returned, in the order they ended. A call that throws
 * fails the whole load.
 */
export const concurrently = async <Result>(
  count: number,
  concurrency: number,
  call: () => Promise<Result>,
): Promise<Result[]> => {
  const results: Result[] = [];
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      results.push(await call());
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
};
