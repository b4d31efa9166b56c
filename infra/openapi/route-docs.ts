import {
  accountCreate,
  accountPatch,
  channelPut,
  keyCreate,
  keyPatch,
  modelPut,
} from '../../functions/admin/schemas.js';
import { gatewayConfigSchema } from '../../functions/shared/config/gateway-config-schema.js';
import {
  anthropicCountTokensRequestSchema,
  anthropicMessagesRequestSchema,
} from '../../functions/shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { geminiGenerateContentRequestSchema } from '../../functions/shared/protocols/gemini/gemini-generate-content-request.js';
import { chatCompletionRequestSchema } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';
import { responsesRequestSchema } from '../../functions/shared/protocols/openai-responses/responses-request.js';
import { embeddingsRequestSchema } from '../../functions/shared/schemas/embeddings-request.js';
import { imagesRequestSchema } from '../../functions/shared/schemas/images-request.js';
import { speechRequestSchema } from '../../functions/shared/schemas/speech-request.js';
import type * as z from '../../functions/shared/schemas/zod.js';

/** Who may call a route, as the OpenAPI document's security requirement names it. */
export type RouteAccess = 'none' | 'client-key' | 'messages-key' | 'models-key' | 'gemini-key' | 'admin' | 'console';

/** The envelope a route's errors use (errors.md). */
export type ErrorProtocol = 'openai' | 'anthropic' | 'gemini';

/** What the document says of one route beyond its method and path. */
export interface RouteDoc {
  readonly summary: string;
  readonly tag: string;
  readonly access: RouteAccess;
  /** The request body's schema, as the handler validates it, and its name among the components. */
  readonly body?: { readonly name: string; readonly schema: () => z.ZodMiniType };
  /** The response can be a server-sent event stream (`stream: true`, or the path's streaming method). */
  readonly streams?: boolean;
  /** The response is binary (speech audio). */
  readonly binary?: boolean;
  readonly errors?: ErrorProtocol;
}

/**
 * Every route's description, keyed `METHOD path` as in functions/shared/routes.ts. A test fails when
 * a route has no entry here, so a new route is documented when it is added.
 */
export const routeDocs: Readonly<Record<string, RouteDoc>> = {
  'GET /health': { summary: 'Liveness and the running version', tag: 'health', access: 'none' },
  'GET /openapi.json': { summary: 'This document', tag: 'health', access: 'none' },

  'GET /v1/models': {
    summary:
      "The models the key may use, in OpenAI's format (Anthropic's with anthropic-version, Google's with x-goog-api-key or ?key=)",
    tag: 'models',
    access: 'models-key',
  },
  'POST /v1/chat/completions': {
    summary: 'Chat completion, streamed (server-sent events) with stream: true',
    tag: 'chat',
    access: 'client-key',
    body: { name: 'ChatCompletionRequest', schema: chatCompletionRequestSchema },
    streams: true,
  },
  'POST /v1/messages': {
    summary: 'Anthropic Messages, natively on anthropic channels and translated elsewhere',
    tag: 'messages',
    access: 'messages-key',
    body: { name: 'MessagesRequest', schema: anthropicMessagesRequestSchema },
    streams: true,
    errors: 'anthropic',
  },
  'POST /v1/messages/count_tokens': {
    summary: 'Anthropic token count of a Messages request',
    tag: 'messages',
    access: 'messages-key',
    body: { name: 'CountTokensRequest', schema: anthropicCountTokensRequestSchema },
    errors: 'anthropic',
  },
  'GET /v1beta/models': {
    summary: "The models the key may use, in Google's format",
    tag: 'gemini',
    access: 'gemini-key',
    errors: 'gemini',
  },
  'POST /v1beta/models/{modelAction}': {
    summary: '`{model}:generateContent`, `{model}:streamGenerateContent?alt=sse` or `{model}:countTokens`',
    tag: 'gemini',
    access: 'gemini-key',
    body: { name: 'GenerateContentRequest', schema: geminiGenerateContentRequestSchema },
    streams: true,
    errors: 'gemini',
  },
  'POST /v1/models/{modelAction}': {
    summary: 'The Gemini methods under /v1, the default API version of @google/genai 3.x',
    tag: 'gemini',
    access: 'gemini-key',
    body: { name: 'GenerateContentRequest', schema: geminiGenerateContentRequestSchema },
    streams: true,
    errors: 'gemini',
  },
  'POST /v1/responses': {
    summary: 'Responses API, streamed with stream: true',
    tag: 'responses',
    access: 'client-key',
    body: { name: 'ResponsesRequest', schema: responsesRequestSchema },
    streams: true,
  },
  'GET /v1/responses/{id}': {
    summary: "A stored response of the key's account, as it was returned",
    tag: 'responses',
    access: 'client-key',
  },
  'DELETE /v1/responses/{id}': {
    summary: "Deletes a stored response of the key's account",
    tag: 'responses',
    access: 'client-key',
  },
  'GET /v1/responses/{id}/input_items': {
    summary: 'The items a stored response was made from, earlier turns included (limit, after, order)',
    tag: 'responses',
    access: 'client-key',
  },
  'POST /v1/embeddings': {
    summary: 'Embeddings',
    tag: 'embeddings',
    access: 'client-key',
    body: { name: 'EmbeddingsRequest', schema: embeddingsRequestSchema },
  },
  'POST /v1/images/generations': {
    summary: 'Image generation',
    tag: 'images',
    access: 'client-key',
    body: { name: 'ImagesRequest', schema: imagesRequestSchema },
  },
  'POST /v1/audio/speech': {
    summary: 'Text to speech; the audio is streamed as it arrives',
    tag: 'audio',
    access: 'client-key',
    body: { name: 'SpeechRequest', schema: speechRequestSchema },
    binary: true,
  },

  'POST /admin/v1/accounts': {
    summary: 'Create an account',
    tag: 'admin: accounts',
    access: 'admin',
    body: { name: 'AccountCreate', schema: accountCreate },
  },
  'GET /admin/v1/accounts': { summary: 'List accounts (limit, cursor)', tag: 'admin: accounts', access: 'admin' },
  'GET /admin/v1/accounts/{id}': { summary: 'Read an account', tag: 'admin: accounts', access: 'admin' },
  'PATCH /admin/v1/accounts/{id}': {
    summary: 'Change an account',
    tag: 'admin: accounts',
    access: 'admin',
    body: { name: 'AccountPatch', schema: accountPatch },
  },
  'DELETE /admin/v1/accounts/{id}': {
    summary: 'Delete an account, its keys and its members (usage records stay)',
    tag: 'admin: accounts',
    access: 'admin',
  },
  'POST /admin/v1/keys': {
    summary: 'Create a key; the key is in this response only',
    tag: 'admin: keys',
    access: 'admin',
    body: { name: 'KeyCreate', schema: keyCreate },
  },
  'GET /admin/v1/keys': {
    summary: 'List the keys of an account (never the key itself)',
    tag: 'admin: keys',
    access: 'admin',
  },
  'GET /admin/v1/keys/{id}': { summary: 'Read a key', tag: 'admin: keys', access: 'admin' },
  'PATCH /admin/v1/keys/{id}': {
    summary: 'Change a key',
    tag: 'admin: keys',
    access: 'admin',
    body: { name: 'KeyPatch', schema: keyPatch },
  },
  'DELETE /admin/v1/keys/{id}': { summary: 'Revoke a key', tag: 'admin: keys', access: 'admin' },
  'GET /admin/v1/channels': {
    summary: 'List channels (never their upstream key)',
    tag: 'admin: channels',
    access: 'admin',
  },
  'GET /admin/v1/channels/{id}': { summary: 'Read a channel', tag: 'admin: channels', access: 'admin' },
  'PUT /admin/v1/channels/{id}': {
    summary: 'Create or replace a channel; a new baseUrl or type needs its apiKey again',
    tag: 'admin: channels',
    access: 'admin',
    body: { name: 'ChannelPut', schema: channelPut },
  },
  'DELETE /admin/v1/channels/{id}': {
    summary: 'Delete a channel and its stored upstream key',
    tag: 'admin: channels',
    access: 'admin',
  },
  'GET /admin/v1/models': {
    summary: 'Every served model with its effective price',
    tag: 'admin: models',
    access: 'admin',
  },
  'GET /admin/v1/models/{model}': { summary: 'One served model', tag: 'admin: models', access: 'admin' },
  'PUT /admin/v1/models/{model}': {
    summary: "Set a model's price, aliases and owner",
    tag: 'admin: models',
    access: 'admin',
    body: { name: 'ModelPut', schema: modelPut },
  },
  'DELETE /admin/v1/models/{model}': { summary: "Remove a model's settings", tag: 'admin: models', access: 'admin' },
  'GET /admin/v1/usage': {
    summary: 'Usage records, newest first (accountId, keyId, model, from, to, limit, cursor, groupBy), with totals',
    tag: 'admin: usage',
    access: 'admin',
  },
  'GET /admin/v1/metrics': {
    summary: 'Request counters since the process started',
    tag: 'admin: usage',
    access: 'admin',
  },
  'POST /admin/v1/apply': {
    summary: 'Apply a config document (channels, models, accounts, keys); placeholders are refused',
    tag: 'admin: config',
    access: 'admin',
    body: { name: 'GatewayConfig', schema: gatewayConfigSchema },
  },
  'GET /admin/v1/audit': {
    summary: 'The audit trail, newest first (limit, cursor, action, actorId, from, to)',
    tag: 'admin: audit',
    access: 'admin',
  },
  'GET /admin/v1/members': { summary: 'List console members', tag: 'admin: members', access: 'admin' },
  'PUT /admin/v1/members/{id}': {
    summary: 'Create or change a console member',
    tag: 'admin: members',
    access: 'admin',
  },
  'DELETE /admin/v1/members/{id}': { summary: 'Remove a console member', tag: 'admin: members', access: 'admin' },

  'GET /console': { summary: 'The console page', tag: 'console', access: 'none' },
  'GET /console/{asset}': { summary: "The console's script and stylesheet", tag: 'console', access: 'none' },
  'GET /console/api/config': { summary: 'How to sign in (local or Cognito)', tag: 'console', access: 'none' },
  'POST /console/api/session': { summary: 'Sign in', tag: 'console', access: 'none' },
  'DELETE /console/api/session': { summary: 'Sign out', tag: 'console', access: 'console' },
  'GET /console/api/me': { summary: 'The signed-in person', tag: 'console', access: 'console' },
  'GET /console/api/keys': { summary: 'The keys the person may see', tag: 'console', access: 'console' },
  'POST /console/api/keys': { summary: 'Create a key', tag: 'console', access: 'console' },
  'DELETE /console/api/keys/{id}': { summary: 'Revoke a key', tag: 'console', access: 'console' },
  'GET /console/api/models': {
    summary: 'The models the person may call, with client snippets',
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/usage': { summary: 'Usage for a period', tag: 'console', access: 'console' },
  'PATCH /console/api/keys/{id}': {
    summary: "Change a key's name, models, limits or expiry",
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/audit': { summary: 'The audit trail (operators)', tag: 'console', access: 'console' },
  'GET /console/api/overview': {
    summary: 'Requests, tokens and spend per day, account, model and key (operators see every account)',
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/requests': {
    summary: 'The request log: filters, a cursor, and CSV with format=csv',
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/channels/health': {
    summary: "Channels' recent failures and cool-downs (operators)",
    tag: 'console',
    access: 'console',
  },
  'POST /console/api/channels/{id}/test': {
    summary: 'Send a small request through one channel (operators)',
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/budgets': {
    summary: "The budgets that cover the signed-in person's requests, with spending and reset",
    tag: 'console',
    access: 'console',
  },
  'PUT /console/api/budgets/{level}/{id}': {
    summary: "Set or remove a key's or member's budget (account admins, operators)",
    tag: 'console',
    access: 'console',
  },
  'GET /console/api/members': {
    summary: "The members of the person's account (account admins)",
    tag: 'console',
    access: 'console',
  },
  'PUT /console/api/members/{id}': { summary: 'Add a member or change their role', tag: 'console', access: 'console' },
  'DELETE /console/api/members/{id}': {
    summary: 'Remove a member and revoke their keys',
    tag: 'console',
    access: 'console',
  },
  'POST /console/api/mfa': { summary: 'Set up or verify a TOTP authenticator', tag: 'console', access: 'console' },
};
