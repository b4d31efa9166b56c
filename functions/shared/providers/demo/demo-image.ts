import { createHash } from 'node:crypto';
import { invalidValue } from '../../errors.js';
import type { ImagesResult } from '../../schemas/images-request.js';
import type { ImagesProvider } from '../images-provider.js';
import { encodePng } from './png-encoder.js';

/**
 * The demo's images: real PNGs of the requested size, a soft vertical gradient of a colour taken from
 * the prompt's hash (the n-th image of a request shifted in hue), so the same prompt gives the same
 * picture. `response_format: "url"` answers a `data:image/png;base64,…` URL: the demo has nowhere to
 * host files. Only `png` output: `jpeg` and `webp` are a 400 naming `output_format`.
 */
const dimensions = (size: string | null | undefined): [number, number] => {
  if (!size || size === 'auto') return [1024, 1024];
  const [width, height] = size.split('x').map(Number);
  return [width!, height!];
};

export const demoColour = (prompt: string, index: number): [number, number, number] => {
  const digest = createHash('sha256').update(`${prompt}#${index}`).digest();
  return [digest[0]!, digest[1]!, digest[2]!];
};

export const demoPng = (
  prompt: string,
  index: number,
  size: string | null | undefined,
  transparent: boolean,
): Buffer => {
  const [width, height] = dimensions(size);
  const [r, g, b] = demoColour(prompt, index);
  const rows = Array.from({ length: height }, (_, y) => {
    const shade = 0.6 + (0.4 * y) / height;
    return [Math.round(r * shade), Math.round(g * shade), Math.round(b * shade), 255];
  });
  return encodePng(width, height, (_x, y) => rows[y]!, transparent);
};

export const demoImages: ImagesProvider = {
  async generate(call) {
    const { request } = call;
    if (request.output_format && request.output_format !== 'png') {
      throw invalidValue(
        `The demo model produces only PNG images; '${request.output_format}' needs a real image model.`,
        'output_format',
      );
    }
    const count = request.n ?? 1;
    const result: ImagesResult = {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: count }, (_, index) => {
        const b64 = demoPng(request.prompt, index, request.size, request.background === 'transparent').toString(
          'base64',
        );
        return request.response_format === 'url'
          ? { url: `data:image/png;base64,${b64}`, revised_prompt: request.prompt }
          : { b64_json: b64, revised_prompt: request.prompt };
      }),
    };
    return result;
  },
};
