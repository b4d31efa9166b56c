import type { ResponseContext } from '../shared/protocols/openai-responses/responses-from-chat.js';
import type { ResponsesRequest } from '../shared/protocols/openai-responses/responses-request.js';
import type { Conversation } from './responses-conversation.js';

/** One POST /v1/responses as the relay serves it on any channel. */
export interface ResponsesTurn {
  /** The body as the client sent it. */
  readonly request: ResponsesRequest;
  /** The response's gateway id, time and public model, and what its envelope echoes. */
  readonly context: ResponseContext;
  /** The whole conversation, when the gateway keeps this response or continues a stored one. */
  readonly conversation?: Conversation;
  /** Whether the gateway keeps the response (`store` true or absent). */
  readonly keep: boolean;
  /** The account the response is kept for. */
  readonly accountId: string;
}

export const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/** Whether the client asked for reasoning's encrypted content itself (`include`). */
export const clientWantsEncryptedReasoning = (request: ResponsesRequest): boolean =>
  Array.isArray(request.include) && request.include.includes(ENCRYPTED_REASONING);

/** The body a native Responses channel receives (model name and all else as the channel call sets them). */
export const nativeRequestBody = (turn: ResponsesTurn, input: unknown): ResponsesRequest => {
  if (!turn.conversation) return turn.request;
  const { previous_response_id: _chained, ...rest } = turn.request;
  const include = Array.isArray(rest.include) ? (rest.include as unknown[]) : [];
  return {
    ...rest,
    input: input as ResponsesRequest['input'],
    // The gateway holds the state: the upstream keeps nothing, and hands back reasoning it can be sent again.
    store: false,
    ...(turn.keep ? { include: [...new Set([...include, ENCRYPTED_REASONING])] } : {}),
  };
};
