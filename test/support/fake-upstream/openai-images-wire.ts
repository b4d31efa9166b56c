import type { WireRoute } from './fake-upstream.js';

/** A 1×1 PNG, as an image model's b64_json would carry it. */
export const fakePngBase64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** OpenAI's `POST /v1/images/generations` (gpt-image style: b64_json and token usage). */
const generations: WireRoute = ({ request, response }) => {
  const count = request.body.n ?? 1;
  const data = Array.from({ length: count }, () =>
    request.body.response_format === 'url'
      ? { url: 'https://images.example/fake.png', revised_prompt: `revised: ${request.body.prompt}` }
      : { b64_json: fakePngBase64 },
  );
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      created: 1_700_000_000,
      data,
      usage: {
        input_tokens: 9,
        output_tokens: 272,
        total_tokens: 281,
        input_tokens_details: { text_tokens: 9, image_tokens: 0 },
      },
    }),
  );
};

export const openAiImagesRoutes: Record<string, WireRoute> = {
  'POST /v1/images/generations': generations,
};
