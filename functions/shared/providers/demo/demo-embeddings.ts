import { createHash } from 'node:crypto';
import { estimateTokens } from '../../accounting/estimate-tokens.js';
import { embeddingsInputs, type EmbeddingsResult } from '../../schemas/embeddings-request.js';
import type { EmbeddingsProvider } from '../embeddings-provider.js';
import { float32Base64 } from '../float32-base64.js';

export const DEMO_EMBEDDING_DIMENSIONS = 1536;

/**
 * A deterministic unit vector for an input: a PRNG (xorshift128) seeded by the input's SHA-256, so the
 * same text always maps to the same vector and different texts to (nearly) orthogonal ones.
 */
export const demoVector = (input: string | readonly number[], dimensions: number): Float32Array => {
  const seed = createHash('sha256')
    .update(typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`)
    .digest();
  let a = seed.readUInt32LE(0) | 1;
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  const next = () => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return d / 0x1_0000_0000 - 0.5;
  };
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    vector[index] = next();
    norm += vector[index]! * vector[index]!;
  }
  const scale = 1 / Math.sqrt(norm || 1);
  for (let index = 0; index < dimensions; index++) vector[index]! *= scale;
  return vector;
};

export const demoEmbeddings: EmbeddingsProvider = {
  async embed(call) {
    const { request } = call;
    const dimensions = request.dimensions ?? DEMO_EMBEDDING_DIMENSIONS;
    const inputs = embeddingsInputs(request.input);
    const promptTokens = inputs.reduce(
      (sum, input) => sum + (typeof input === 'string' ? estimateTokens(input) : input.length),
      0,
    );
    const result: EmbeddingsResult = {
      object: 'list',
      data: inputs.map((input, index) => {
        const vector = demoVector(input, dimensions);
        return {
          object: 'embedding',
          index,
          embedding: request.encoding_format === 'base64' ? float32Base64(vector) : Array.from(vector),
        };
      }),
      model: call.upstreamModel,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
    return result;
  },
};
