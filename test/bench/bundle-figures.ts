import { lambdaLikeEnvironment } from '../../infra/build/bundle-runner.js';
import { allGroups, bundleAll, helloWorldColdStart, storeClientColdStart } from '../../infra/build/bundle.js';
import { measureColdStart } from '../../infra/build/runtime-client-runner.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';

/**
 * The bundle targets of DESIGN §6, measured for `npm run bench` the way `npm run build` measures
 * them: each function bundle's size (what a cold start loads), and its cold start under AWS's
 * runtime interface client against a hello-world function's, in the same run.
 */
export interface GroupFigures {
  readonly group: string;
  readonly kilobytes: number;
  /** Cold start over the hello-world's; undefined when the runtime interface client could not run. */
  readonly coldStartRatio: number | undefined;
}

export interface BundleFigures {
  readonly groups: readonly GroupFigures[];
  readonly helloWorldMs: number | undefined;
  /**
   * A function that only makes the store client, over the hello-world's: the part every group carries;
   * or why it was not measured.
   */
  readonly storeClientRatio: number | string | undefined;
  /** Why cold starts were not measured, when they were not. */
  readonly coldStartsMissing?: string;
}

export const measureBundles = (runs: number): Promise<BundleFigures> =>
  inTemporaryDirectory('gateway-bench-bundles-', async (directory) => {
    const bundles = await bundleAll(allGroups, directory);
    const helloWorld = await helloWorldColdStart(runs);
    const storeClient = typeof helloWorld === 'number' ? await storeClientColdStart(runs) : undefined;
    const storeClientRatio =
      typeof helloWorld === 'number' && typeof storeClient === 'number' ? storeClient / helloWorld : storeClient;
    const groups: GroupFigures[] = [];
    for (const bundle of bundles) {
      const coldStartMs =
        typeof helloWorld === 'string'
          ? undefined
          : await measureColdStart(bundle.outfile, lambdaLikeEnvironment(`model-gateway-${bundle.group}`), runs);
      groups.push({
        group: bundle.group,
        kilobytes: bundle.bytes / 1024,
        coldStartRatio:
          coldStartMs === undefined || typeof helloWorld === 'string' ? undefined : coldStartMs / helloWorld,
      });
    }
    return typeof helloWorld === 'string'
      ? { groups, helloWorldMs: undefined, storeClientRatio, coldStartsMissing: helloWorld }
      : { groups, helloWorldMs: helloWorld, storeClientRatio };
  });
