/** The Response object and its streaming events (OpenAI Responses wire format), as the gateway emits them. */

export interface ResponseOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs?: unknown[];
}

export interface ResponseMessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: ResponseOutputText[];
}

export interface ResponseFunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  /** The namespace tool the function belongs to. */
  namespace?: string;
}

/** A call of a custom (free-form input) tool. */
export interface ResponseCustomToolCallItem {
  type: 'custom_tool_call';
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  namespace?: string;
}

/** A call of the client-run tool search: the client answers it with a `tool_search_output` item. */
export interface ResponseToolSearchCallItem {
  type: 'tool_search_call';
  id: string;
  call_id: string;
  execution: 'client';
  arguments: unknown;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export interface ResponseReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  content?: { type: 'reasoning_text'; text: string }[];
  status?: 'in_progress' | 'completed' | 'incomplete';
}

export type ResponseOutputItem =
  | ResponseMessageItem
  | ResponseFunctionCallItem
  | ResponseCustomToolCallItem
  | ResponseToolSearchCallItem
  | ResponseReasoningItem;

/** Any item that answers a chat tool call. */
export type ResponseToolCallItem = ResponseFunctionCallItem | ResponseCustomToolCallItem | ResponseToolSearchCallItem;

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens_details: { reasoning_tokens: number };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: ResponseOutputItem[];
  usage: ResponsesUsage | null;
  [extra: string]: unknown;
}

/** One streaming event; `type` is also the SSE event name. */
export interface ResponseStreamEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}
