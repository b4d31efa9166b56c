import OpenAI from 'openai';
import { describeFailover, PROMPT, type SdkUnderTest } from '../support/two-channel-setup.js';

/** The openai SDK on /v1/chat/completions, two `openai` channels behind it. */
const openAiSdk = (apiKey: string, gatewayUrl: string): SdkUnderTest => {
  const client = new OpenAI({ apiKey, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: PROMPT }];
  return {
    async ask(model, { stream, signal, onChunk }) {
      if (!stream) {
        const completion = await client.chat.completions.create({ model, messages }, { signal });
        return completion.choices[0]?.message.content ?? '';
      }
      let text = '';
      for await (const chunk of await client.chat.completions.create({ model, messages, stream: true }, { signal })) {
        onChunk?.();
        text += chunk.choices[0]?.delta.content ?? '';
      }
      return text;
    },
    expectGatewayError(error, { status, code, midStream }) {
      expect(error).toBeInstanceOf(OpenAI.APIError);
      // An error event arrives on a 200 stream: the SDK has no status to give then.
      expect(error).toMatchObject({ status: midStream ? undefined : status, type: 'upstream_error', code });
    },
  };
};

describeFailover('openai', openAiSdk);
