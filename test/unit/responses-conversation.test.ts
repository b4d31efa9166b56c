import {
  checkStorable,
  inputItems,
  MAX_CONVERSATION_BYTES,
  nativeInput,
  replayLookup,
  type Conversation,
  type ConversationItem,
} from '../../functions/chat/responses-conversation.js';
import { GatewayError } from '../../functions/shared/errors.js';
import { toChatMessages } from '../../functions/shared/protocols/openai-responses/responses-to-chat-request.js';

const RESPONSE = 'resp_abc';
const signed = [{ type: 'thinking' as const, thinking: 'hmm', signature: 'sig_1' }];

describe('a conversation rebuilt from the store', () => {
  it('gives every input item an id, keeping a client id only while it is unused', () => {
    const items = inputItems(
      [
        { role: 'user', content: 'a' },
        { type: 'function_call_output', id: 'mine', call_id: 'c', output: 'x' } as never,
        { type: 'message', id: 'taken', role: 'user', content: 'b' } as never,
        { type: 'message', id: 'mine', role: 'user', content: 'c' } as never,
      ],
      RESPONSE,
      new Set(['taken']),
    );

    const ids = items.map((item) => item.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids[1]).toBe('mine');
    expect(ids).not.toContain('taken');
    expect(items[0]).toMatchObject({ type: 'message', role: 'user', content: 'a' });
  });

  it('is refused past the documented size, naming the field that made it long', () => {
    const big = 'x'.repeat(MAX_CONVERSATION_BYTES);
    const conversation = (previousResponseId: string | null): Conversation => ({
      previousResponseId,
      items: [{ id: 'msg_1', type: 'message', role: 'user', content: big }],
      replay: {},
    });

    for (const [previous, param] of [
      [null, 'input'],
      ['resp_x', 'previous_response_id'],
    ] as const) {
      const failure = (() => {
        try {
          checkStorable(conversation(previous));
        } catch (error) {
          return error;
        }
      })();
      expect(failure).toBeInstanceOf(GatewayError);
      expect(failure).toMatchObject({ status: 400, param });
    }
    expect(() => checkStorable({ previousResponseId: null, items: [], replay: {} })).not.toThrow();
  });

  it('goes to a native channel without the gateway ids, reasoning only where it can be read', () => {
    const items: ConversationItem[] = [
      { id: 'msg_1', type: 'message', role: 'user', content: 'q' },
      { id: 'rs_kept', type: 'reasoning', summary: [] },
      { id: 'rs_other', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'another vendor' }] },
      { id: 'rs_client', type: 'reasoning', summary: [], encrypted_content: 'from-client' },
    ];

    const sent = nativeInput({
      previousResponseId: 'resp_x',
      items,
      replay: { rs_kept: { encrypted_content: 'enc' } },
    });

    expect(sent).toEqual([
      { type: 'message', role: 'user', content: 'q' },
      { type: 'reasoning', summary: [], encrypted_content: 'enc' },
      { type: 'reasoning', summary: [], encrypted_content: 'from-client' },
    ]);
  });

  it('goes to a chat channel with signed thinking on the turn it opened, and on no later one', () => {
    const items: ConversationItem[] = [
      { id: 'msg_u1', type: 'message', role: 'user', content: 'q1' },
      { id: 'rs_1', type: 'reasoning', summary: [] },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      { id: 'fco_1', type: 'function_call_output', call_id: 'call_1', output: 'r' },
      { id: 'msg_a1', type: 'message', role: 'assistant', content: 'done' },
      { id: 'msg_u2', type: 'message', role: 'user', content: 'q2' },
      { id: 'rs_orphan', type: 'reasoning', summary: [] },
      { id: 'msg_u3', type: 'message', role: 'user', content: 'q3' },
      { id: 'msg_a3', type: 'message', role: 'assistant', content: 'plain' },
    ];
    const replay = replayLookup({
      rs_1: { thinking_blocks: signed },
      fc_1: { extra_content: { google: { thought_signature: 'gsig' } } },
      rs_orphan: { thinking_blocks: [{ type: 'thinking', thinking: 'lost', signature: 'sig_2' }] },
    });

    const messages = toChatMessages(items as never, undefined, undefined, replay);

    const assistants = messages.filter((message) => message.role === 'assistant');
    expect(assistants[0]).toMatchObject({
      thinking_blocks: signed,
      tool_calls: [{ id: 'call_1', extra_content: { google: { thought_signature: 'gsig' } } }],
    });
    expect(assistants[1]).not.toHaveProperty('thinking_blocks');
    expect(assistants[2]).not.toHaveProperty('thinking_blocks');
  });
});
