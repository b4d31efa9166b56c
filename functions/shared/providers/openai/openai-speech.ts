import { withIdleTimeout } from '../../upstream/upstream-http.js';
import { redactSecrets } from '../../security/redact-secrets.js';
import { speechContentTypes } from '../../schemas/speech-request.js';
import type { SpeechProvider } from '../speech-provider.js';
import { postOpenAi } from './openai-json-call.js';

/** `POST {baseUrl}/audio/speech`: the upstream's audio bytes, passed on as they arrive. */
export const openAiSpeech: SpeechProvider = {
  async speak(call) {
    const response = await postOpenAi(call, '/audio/speech', { ...call.request, model: call.upstreamModel });
    const upstreamType = response.headers['content-type'];
    return {
      contentType:
        typeof upstreamType === 'string' && upstreamType.startsWith('audio/')
          ? redactSecrets(upstreamType)
          : speechContentTypes[call.request.response_format ?? 'mp3'],
      body: withIdleTimeout(response.body, call.timeouts.idleMs),
    };
  },
};
