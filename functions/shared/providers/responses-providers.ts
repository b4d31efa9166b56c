import type { UpstreamTimeouts } from '../relay/upstream-http.js';
import type { ResponsesRequest } from '../schemas/responses-request.js';
import type { ResponseObject, ResponseStreamEvent } from '../schemas/responses-result.js';
import type { Channel, ChannelType } from '../store/channels.js';
import { openAiResponses } from './openai/openai-responses.js';

export interface ResponsesCall {
  readonly request: ResponsesRequest;
  readonly upstreamModel: string;
  readonly channel: Channel;
  readonly signal: AbortSignal;
  readonly timeouts: UpstreamTimeouts;
}

/**
 * An upstream that serves the Responses API natively. Channel types without one are served by
 * translation to and from chat completions (see `translation/responses-*`).
 */
export interface ResponsesProvider {
  create(call: ResponsesCall): Promise<ResponseObject>;
  /** Resolves once the upstream accepted the request; the events are relayed as they arrive. */
  stream(call: ResponsesCall): Promise<AsyncIterable<ResponseStreamEvent>>;
}

export const responsesProviders: Readonly<Partial<Record<ChannelType, ResponsesProvider>>> = {
  openai: openAiResponses,
};
