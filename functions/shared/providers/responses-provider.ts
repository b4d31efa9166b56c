import type { ResponsesRequest } from '../protocols/openai-responses/responses-request.js';
import type { ResponseObject, ResponseStreamEvent } from '../protocols/openai-responses/responses-result.js';
import type { ChannelCall } from './channel-call.js';

export type ResponsesCall = ChannelCall<ResponsesRequest>;

/**
 * An upstream that serves the Responses API natively. Channel types without one are served by
 * translation to and from chat completions (protocols/openai-responses).
 */
export interface ResponsesProvider {
  create(call: ResponsesCall): Promise<ResponseObject>;
  /** Resolves once the upstream accepted the request; the events are relayed as they arrive. */
  stream(call: ResponsesCall): Promise<AsyncIterable<ResponseStreamEvent>>;
}
