import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { checkedConverseOutput, checkedStreamEvent } from '../../functions/shared/providers/bedrock/bedrock-api.js';
import { fromBedrockResponse } from '../../functions/shared/providers/bedrock/bedrock-response.js';
import type { BedrockConverseOutput } from '../../functions/shared/providers/bedrock/bedrock-response.js';

/** A Converse answer with a tool call, as the SDK hands it over: its types unchecked. */
const answer = (toolUse: Record<string, unknown>, usage: Record<string, unknown> = { inputTokens: 2 }) =>
  ({
    output: { message: { role: 'assistant', content: [{ text: 'hi' }, { toolUse }] } },
    stopReason: 'tool_use',
    usage,
  }) as unknown as BedrockConverseOutput;

describe("Bedrock's answers, as the gateway checks them", () => {
  it('takes a well-formed answer, any tool input and any usage (read by tokenCount), as they are', () => {
    const output = answer({ toolUseId: 't', name: 'lookup', input: { q: 'x' } }, { inputTokens: 'odd' });
    expect(checkedConverseOutput(output)).toBe(output);
  });

  it.each([
    ['a tool name that is a list', { toolUseId: 't', name: [[1]], input: {} }],
    ['a tool id that is a number', { toolUseId: 7, name: 'lookup', input: {} }],
  ])('refuses %s as the upstream’s broken answer', (_kind, toolUse) => {
    expect(() => checkedConverseOutput(answer(toolUse))).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_error' }),
    );
  });

  it('refuses a stream event whose delta text is not text, and takes the rest', () => {
    const good = { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'hel' } } } as ConverseStreamOutput;
    expect(checkedStreamEvent(good)).toBe(good);
    const bad = { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 5n } } } as unknown as ConverseStreamOutput;
    expect(() => checkedStreamEvent(bad)).toThrow(expect.objectContaining({ status: 502 }));
  });

  it('writes a tool input holding a bigint (the SDK reads integers past 2^53 so) with its digits', () => {
    const completion = fromBedrockResponse(
      checkedConverseOutput(answer({ toolUseId: 't', name: 'lookup', input: { id: 9007199254740993n } })),
      { id: 'r', model: 'm' },
    );
    expect(completion.choices[0]!.message.tool_calls![0]!.function.arguments).toBe('{"id":9007199254740993}');
  });

  it('writes a tool input object that only looks like an exact number (a plain object) as the object it is', () => {
    const input = { amount: { string: '1.50', type: 'bigDecimal' } };
    const completion = fromBedrockResponse(checkedConverseOutput(answer({ toolUseId: 't', name: 'pay', input })), {
      id: 'r',
      model: 'm',
    });
    expect(completion.choices[0]!.message.tool_calls![0]!.function.arguments).toBe(JSON.stringify(input));
  });
});
