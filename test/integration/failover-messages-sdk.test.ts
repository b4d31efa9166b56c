import Anthropic from '@anthropic-ai/sdk';
import { describeFailover, PROMPT, type SdkUnderTest, type UpstreamFailureCode } from '../support/two-channel-setup.js';

/** How each gateway failure reads in Anthropic's envelope, which has a type but no code. */
const messageOf: Record<UpstreamFailureCode, RegExp> = {
  upstream_error: /upstream provider (failed|could not be reached|sent a response)/,
  upstream_timeout: /upstream provider timed out/,
  no_channel: /No enabled channel/,
};

/** The Anthropic SDK on the native /v1/messages, two `anthropic` channels behind it. */
const anthropicSdk = (apiKey: string, gatewayUrl: string): SdkUnderTest => {
  const client = new Anthropic({ apiKey, baseURL: gatewayUrl, maxRetries: 0 });
  const request = { max_tokens: 100, messages: [{ role: 'user' as const, content: PROMPT }] };
  return {
    async ask(model, { stream, signal, onChunk }) {
      if (!stream) {
        const message = await client.messages.create({ model, ...request }, { signal });
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      }
      let text = '';
      for await (const event of await client.messages.create({ model, ...request, stream: true }, { signal })) {
        onChunk?.();
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      }
      return text;
    },
    expectGatewayError(error, { status, code, midStream }) {
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error).toMatchObject({
        status: midStream ? undefined : status,
        error: { type: 'error', error: { type: 'api_error', message: expect.stringMatching(messageOf[code]) } },
      });
    },
  };
};

describeFailover('anthropic', anthropicSdk);
