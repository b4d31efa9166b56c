import type { ChannelCall } from '../routing/channel-call.js';
import type { ResponsesRequest } from '../protocols/openai-responses/responses-request.js';
import type { ResponseObject, ResponseStreamEvent } from '../protocols/openai-responses/responses-result.js';
import type { ChannelType } from '../store/channels.js';
import { openAiResponses } from './openai/openai-responses.js';

export type ResponsesCall = ChannelCall<ResponsesRequest>;

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
