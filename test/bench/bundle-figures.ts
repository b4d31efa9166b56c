import { lambdaLikeEnvironment, median } from '../../infra/build/bundle-runner.js';
import { allGroups, bundleAll, helloWorldColdStart, storeClientColdStart } from '../../infra/build/bundle.js';
import { measurePairedColdStart } from '../../infra/build/runtime-client-runner.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';

/**
 * The bundle targets of DESIGN §6, measured for `npm run bench` the way `npm run build` measures
 * them: each function bundle's size (what a cold start loads), and its cold start under AWS's
 * runtime interface client against a hello-world function's, started in turn with it.
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
    // One run first, to learn whether the runtime interface client runs here at all.
    const probe = await helloWorldColdStart(1);
    if (typeof probe === 'string') {
      const groups = bundles.map((bundle) => ({
        group: bundle.group,
        kilobytes: bundle.bytes / 1024,
        coldStartRatio: undefined,
      }));
      return { groups, helloWorldMs: undefined, storeClientRatio: undefined, coldStartsMissing: probe };
    }
    // Each cold start is taken in turn with a hello-world's, so that the host's drift falls on both.
    const helloWorldTimes: number[] = [];
    const storeClient = await storeClientColdStart(runs);
    if (typeof storeClient !== 'string') helloWorldTimes.push(storeClient.helloWorldMs);
    const groups: GroupFigures[] = [];
    for (const bundle of bundles) {
      const paired = await measurePairedColdStart(
        bundle.outfile,
        lambdaLikeEnvironment(`model-gateway-${bundle.group}`),
        runs,
      );
      helloWorldTimes.push(paired.helloWorldMs);
      groups.push({
        group: bundle.group,
        kilobytes: bundle.bytes / 1024,
        coldStartRatio: paired.ratio,
      });
    }
    return {
      groups,
      helloWorldMs: median(helloWorldTimes),
      storeClientRatio: typeof storeClient === 'string' ? storeClient : storeClient.ratio,
    };
  });
