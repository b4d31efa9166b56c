import { anthropicRoutes } from './anthropic-wire.js';
import { bedrockRoutes } from './bedrock-wire.js';
import type { WireRoute } from './fake-upstream.js';
import { geminiRoutes } from './gemini-wire.js';
import { openAiEmbeddingsRoutes } from './openai-embeddings-wire.js';
import { openAiImagesRoutes } from './openai-images-wire.js';
import { openAiResponsesRoutes } from './openai-responses-wire.js';
import { openAiSpeechRoutes } from './openai-speech-wire.js';
import { openAiRoutes } from './openai-wire.js';

/**
 * The wire formats a fake speaks, by name rather than as functions, so that a fake in another
 * process or a Lambda function can be told which ones to serve. Gemini and Bedrock answer for one
 * upstream model, named in the path.
 */
export type WireSpec =
  | { readonly wire: 'openai' | 'openai-responses' | 'openai-embeddings' | 'openai-images' | 'openai-speech' }
  | { readonly wire: 'anthropic' }
  | { readonly wire: 'gemini' | 'bedrock'; readonly upstreamModel: string };

const WIRE_NAMES = new Set([
  'openai',
  'openai-responses',
  'openai-embeddings',
  'openai-images',
  'openai-speech',
  'anthropic',
  'gemini',
  'bedrock',
]);

const routesOfWire = (spec: WireSpec): Record<string, WireRoute> => {
  switch (spec.wire) {
    case 'openai':
      return openAiRoutes;
    case 'openai-responses':
      return openAiResponsesRoutes;
    case 'openai-embeddings':
      return openAiEmbeddingsRoutes;
    case 'openai-images':
      return openAiImagesRoutes;
    case 'openai-speech':
      return openAiSpeechRoutes;
    case 'anthropic':
      return anthropicRoutes;
    case 'gemini':
      return geminiRoutes(spec.upstreamModel);
    case 'bedrock':
      return bedrockRoutes(spec.upstreamModel);
  }
};

/** The routes of several wire formats at once (later ones win on a shared path). */
export const routesOfWires = (specs: readonly WireSpec[]): Record<string, WireRoute> =>
  Object.assign({}, ...specs.map(routesOfWire));

/** Reads wire specs from a control request; undefined when they are not a list of known wires. */
export const parseWireSpecs = (value: unknown): WireSpec[] | undefined => {
  if (!Array.isArray(value) || value.length === 0 || value.length > 8) return undefined;
  const specs: WireSpec[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { wire, upstreamModel } = item as { wire?: unknown; upstreamModel?: unknown };
    if (typeof wire !== 'string' || !WIRE_NAMES.has(wire)) return undefined;
    if (wire === 'gemini' || wire === 'bedrock') {
      if (typeof upstreamModel !== 'string' || !/^[\w.:-]{1,200}$/.test(upstreamModel)) return undefined;
      specs.push({ wire, upstreamModel });
    } else {
      specs.push({ wire } as WireSpec);
    }
  }
  return specs;
};
