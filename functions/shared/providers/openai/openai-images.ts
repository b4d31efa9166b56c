import type { ImagesResult } from '../../schemas/images-request.js';
import type { ImagesProvider } from '../images-provider.js';
import { postOpenAiJson } from './openai-json-call.js';

const isImagesResult = (payload: unknown): payload is ImagesResult =>
  typeof payload === 'object' && payload !== null && Array.isArray((payload as { data?: unknown }).data);

/** `POST {baseUrl}/images/generations`: the request as the client sent it, under the upstream's model name. */
export const openAiImages: ImagesProvider = {
  generate: (call) =>
    postOpenAiJson(
      call,
      '/images/generations',
      { ...call.request, model: call.upstreamModel },
      isImagesResult,
      'an image result',
    ),
};
