import type { WireRoute } from './fake-upstream.js';

/** The vector the fake answers for input `index`: three recognisable numbers (float32-exact). */
export const fakeVector = (index: number): number[] => [0.5 + index, -0.25, 0.125];

const base64Of = (vector: number[]) => {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
};

/** OpenAI's `POST /v1/embeddings`, honouring `encoding_format`. */
const embeddings: WireRoute = ({ request, response }) => {
  const input = request.body.input;
  const count = typeof input === 'string' || typeof input[0] === 'number' ? 1 : input.length;
  const data = Array.from({ length: count }, (_, index) => ({
    object: 'embedding',
    index,
    embedding: request.body.encoding_format === 'base64' ? base64Of(fakeVector(index)) : fakeVector(index),
  }));
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      object: 'list',
      data,
      model: request.body.model,
      usage: { prompt_tokens: 4 * count, total_tokens: 4 * count },
    }),
  );
};

export const openAiEmbeddingsRoutes: Record<string, WireRoute> = {
  'POST /v1/embeddings': embeddings,
};
