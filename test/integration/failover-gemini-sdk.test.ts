import { ApiError, GoogleGenAI } from '@google/genai';
import { describeFailover, PROMPT, type SdkUnderTest } from '../support/two-channel-setup.js';

/** Google's status names for the gateway's HTTP statuses (its `error.status`). */
const googleStatus: Record<number, string> = { 502: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

/** The @google/genai SDK on the Gemini-style paths, two `gemini` channels behind them. */
const geminiSdk = (apiKey: string, gatewayUrl: string): SdkUnderTest => {
  const genai = new GoogleGenAI({
    apiKey,
    // One attempt: only the gateway's failover is under test. Jest's VM context hides Node's undici
    // dispatcher from the SDK's default transport: hand it fetch itself.
    httpOptions: { baseUrl: gatewayUrl, retryOptions: { attempts: 1 }, fetch: (input, init) => fetch(input, init) },
  });
  return {
    async ask(model, { stream, signal, onChunk }) {
      const request = { model, contents: PROMPT, config: { abortSignal: signal } };
      if (!stream) return (await genai.models.generateContent(request)).text ?? '';
      let text = '';
      for await (const chunk of await genai.models.generateContentStream(request)) {
        onChunk?.();
        text += chunk.text ?? '';
      }
      return text;
    },
    expectGatewayError(error, { status, code }) {
      expect(error).toBeInstanceOf(ApiError);
      // Google's envelope has no code of ours: the status and its name tell the failure apart.
      expect((error as ApiError).status).toBe(status);
      const body = JSON.parse((error as ApiError).message.replace(/^got status: \w+\. /, ''));
      expect(body).toEqual({ error: { code: status, status: googleStatus[status], message: expect.any(String) } });
      expect(body.error.message).toMatch(code === 'no_channel' ? /No enabled channel/ : /upstream provider/);
    },
  };
};

describeFailover('gemini', geminiSdk);
