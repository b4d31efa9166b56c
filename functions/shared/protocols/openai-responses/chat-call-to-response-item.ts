import type { ResponseToolCallItem } from './responses-result.js';
import { customInputOf, toolSearchArgumentsOf, type ToolPlan } from './responses-tool-plan.js';

/**
 * A chat tool call as the Responses item of the tool the client declared: a `function_call` (under its
 * own name and namespace), a `custom_tool_call` with the free-form input, or a client `tool_search_call`.
 */
export const toolCallItem = (
  plan: ToolPlan,
  call: { id: string; callId: string; chatName: string; chatArguments: string },
  status: ResponseToolCallItem['status'],
): ResponseToolCallItem => {
  const origin = plan.origins.get(call.chatName);
  switch (origin?.kind) {
    case 'custom':
      return {
        type: 'custom_tool_call',
        id: call.id.replace(/^fc_/, 'ctc_'),
        call_id: call.callId,
        name: origin.name,
        input: customInputOf(call.chatArguments),
        status,
        ...(origin.namespace ? { namespace: origin.namespace } : {}),
      };
    case 'tool_search':
      return {
        type: 'tool_search_call',
        id: call.id.replace(/^fc_/, 'tsc_'),
        call_id: call.callId,
        execution: 'client',
        arguments: call.chatArguments ? toolSearchArgumentsOf(call.chatArguments) : {},
        status,
      };
    case 'function':
      return {
        type: 'function_call',
        id: call.id,
        call_id: call.callId,
        name: origin.name,
        arguments: call.chatArguments,
        status,
        ...(origin.namespace ? { namespace: origin.namespace } : {}),
      };
    case undefined:
      // A name the request did not declare: relayed as the model said it.
      return {
        type: 'function_call',
        id: call.id,
        call_id: call.callId,
        name: call.chatName,
        arguments: call.chatArguments,
        status,
      };
    default: {
      const unexpected: never = origin;
      throw new Error(`unexpected tool origin ${JSON.stringify(unexpected)}`);
    }
  }
};
