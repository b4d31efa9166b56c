import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { withCallObserver } from '../../aws/aws-call-observer.js';
import type { UpstreamTimeouts } from '../../upstream/upstream-http.js';
import type { Channel } from '../../store/channels.js';
import type * as BedrockRuntimeSdkModule from './bedrock-runtime-sdk.js';

/**
 * The Bedrock Runtime client a channel calls through. Credentials come from the SDK's default chain
 * (on Lambda: the function's role), never from the channel: a `bedrock` channel has no API key.
 */

export const DEFAULT_REGION = 'us-east-1';

// `bedrock-runtime.us-west-2.amazonaws.com`, its FIPS twin, and VPC endpoint names that embed it.
const REGION_IN_HOST =
  /(?:^|\.)bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.(?:vpce\.)?amazonaws\.com(?:\.cn)?$/;

export interface BedrockTarget {
  readonly region: string;
  /** The endpoint override, or undefined for the region's default endpoint. */
  readonly endpoint: string | undefined;
}

/**
 * Where a channel's calls go: no `baseUrl` means the default endpoint of the function's own region;
 * a `baseUrl` is used as it is, signed for the region its host names (else the function's region).
 */
export const bedrockTarget = (
  channel: Pick<Channel, 'baseUrl'>,
  environmentRegion = process.env.AWS_REGION,
): BedrockTarget => {
  const fallback = environmentRegion || DEFAULT_REGION;
  if (!channel.baseUrl) return { region: fallback, endpoint: undefined };
  const endpoint = channel.baseUrl.replace(/\/+$/, '');
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    host = '';
  }
  return { region: REGION_IN_HOST.exec(host)?.[1] ?? fallback, endpoint };
};

type BedrockRuntimeSdk = typeof BedrockRuntimeSdkModule;

let sdk: Promise<BedrockRuntimeSdk> | undefined;

/** The SDK's client and commands, loaded when a `bedrock` channel is first called. */
export const bedrockRuntimeSdk = (): Promise<BedrockRuntimeSdk> => (sdk ??= import('./bedrock-runtime-sdk.js'));

const clients = new Map<string, BedrockRuntimeClient>();

/**
 * One client per target and timeouts, kept for the life of the process so that its connections are
 * reused. Timeouts live in the HTTP handler, and channels rarely override them, so few clients exist.
 */
export const bedrockClient = async (
  channel: Pick<Channel, 'baseUrl'>,
  timeouts: UpstreamTimeouts,
): Promise<BedrockRuntimeClient> => {
  const { BedrockRuntimeClient } = await bedrockRuntimeSdk();
  const target = bedrockTarget(channel);
  const key = JSON.stringify([
    target.region,
    target.endpoint ?? '',
    timeouts.connectMs,
    timeouts.firstByteMs,
    timeouts.idleMs,
  ]);
  let client = clients.get(key);
  if (!client) {
    client = new BedrockRuntimeClient({
      region: target.region,
      ...(target.endpoint ? { endpoint: target.endpoint } : {}),
      // The gateway fails over to the next channel itself; SDK retries would only add latency first.
      maxAttempts: 1,
      // HTTP/1.1 explicitly: the client's default handler is HTTP/2, which Converse does not need.
      requestHandler: new NodeHttpHandler({
        connectionTimeout: timeouts.connectMs,
        requestTimeout: timeouts.firstByteMs,
        throwOnRequestTimeout: true,
        // A backstop for a body that stalls after its headers; streams get the exact idle limit
        // from the provider, which may be shorter than the wait for the first byte.
        socketTimeout: Math.max(timeouts.firstByteMs, timeouts.idleMs),
      }),
    });
    withCallObserver(client);
    clients.set(key, client);
  }
  return client;
};
