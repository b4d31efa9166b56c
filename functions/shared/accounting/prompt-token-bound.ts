/**
 * An upper bound of the prompt tokens any upstream can count for a request, without a tokenizer.
 *
 * Why it is sound: every tokenizer the providers use (byte-level BPE, SentencePiece with byte
 * fallback) turns text into tokens of at least one UTF-8 byte each, so a text never has more tokens
 * than bytes. The bound counts the UTF-8 bytes of every string in the request (field names included,
 * since tool schemas and structured-output schemas reach the model as text), a few bytes per value for
 * the structure around it (which covers each message's role and separator tokens), a fixed amount
 * for the template around the whole prompt, and more when tools are declared (providers add a tool-use
 * preamble). A media part cannot be counted from its bytes: an image counts as the most any provider
 * charges for one, and other inline media (audio, documents) as their payload bytes on top of that.
 *
 * The estimate of about four bytes a token (`estimateTokens`) is what a request usually costs; this is
 * what it can cost at most, for any text: CJK, emoji, random base64 and control characters included.
 */

/** The template around a whole prompt (start and end markers, the assistant's turn) and slack for a leading space marker. */
export const PROMPT_OVERHEAD_TOKENS = 64;

/** The preamble providers add when tools are declared (Anthropic documents up to about 530 tokens). */
export const TOOL_USE_OVERHEAD_TOKENS = 1024;

/**
 * The most a provider charges for one image at its largest resolution: OpenAI's patch-based models
 * stay under about 3,800 tokens, Anthropic's largest images about 4,800, Gemini's high media
 * resolution 1,120. Media referenced by URL or file id count this much too.
 */
export const MEDIA_TOKEN_CEILING = 6400;

/** Tokens a value's surroundings may add: quotes, separators, a role or a message boundary. */
const STRUCTURE_TOKENS = 4;

/** Part types that carry or reference media rather than text, across the client protocols. */
const MEDIA_PART_TYPES: ReadonlySet<string> = new Set([
  'image',
  'image_url',
  'input_image',
  'document',
  'file',
  'input_file',
  'input_audio',
  'audio',
  'video',
  'video_url',
]);

/** Keys under which Gemini-style requests carry or reference media. */
const MEDIA_KEYS: ReadonlySet<string> = new Set(['inlineData', 'inline_data', 'fileData', 'file_data']);

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const isDataUrl = (text: string) => /^data:[^,]{0,200},/i.test(text);

const isImageDataUrl = (text: string) => /^data:image\//i.test(text);

const mimeTypeOf = (object: Record<string, unknown>): string | undefined => {
  const mime = object.media_type ?? object.mimeType ?? object.mime_type;
  return typeof mime === 'string' ? mime : undefined;
};

/**
 * The tokens of an inline media payload (a data URL, or base64 `data` beside a MIME type), beyond the
 * ceiling its part already counts: none for an image, its bytes for anything else, since audio or a
 * document may cost more than one image.
 */
const payloadTokens = (payload: string, image: boolean): number => (image ? 0 : utf8Bytes(payload));

/**
 * Walks the request without recursion (a body nested thousands of levels deep is still counted).
 * Each value is visited with whether a media part around it has already counted the media ceiling, so
 * that an image is counted once whether its part, its source or its data URL says so.
 */
const boundOf = (request: unknown): number => {
  let total = 0;
  // Two stacks side by side, the value and whether its media is counted: no pair made per value.
  const values: unknown[] = [request];
  const counts: boolean[] = [false];
  while (values.length > 0) {
    const value = values.pop();
    const mediaCounted = counts.pop()!;
    total += STRUCTURE_TOKENS;
    if (typeof value === 'string') {
      if (!isDataUrl(value)) total += utf8Bytes(value);
      else total += (mediaCounted ? 0 : MEDIA_TOKEN_CEILING) + payloadTokens(value, isImageDataUrl(value));
      continue;
    }
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      total += String(value).length;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) {
        values.push(item);
        counts.push(mediaCounted);
      }
      continue;
    }
    const object = value as Record<string, unknown>;
    const mime = mimeTypeOf(object);
    const isMediaPart =
      (typeof object.type === 'string' && MEDIA_PART_TYPES.has(object.type)) ||
      (typeof object.data === 'string' && mime !== undefined);
    const counted = mediaCounted || isMediaPart;
    if (isMediaPart && !mediaCounted) total += MEDIA_TOKEN_CEILING;
    for (const key of Object.keys(object)) {
      const item = object[key];
      total += utf8Bytes(key);
      if (key === 'data' && typeof item === 'string' && mime !== undefined) {
        total += STRUCTURE_TOKENS + payloadTokens(item, /^image\//i.test(mime));
      } else if (MEDIA_KEYS.has(key) && !counted) {
        // Gemini's parts name their media by key, not by type.
        total += MEDIA_TOKEN_CEILING;
        values.push(item);
        counts.push(true);
      } else {
        values.push(item);
        counts.push(counted);
      }
    }
  }
  return total;
};

const declaresTools = (request: unknown): boolean => {
  if (request === null || typeof request !== 'object') return false;
  const { tools, functions } = request as { tools?: unknown; functions?: unknown };
  return (Array.isArray(tools) && tools.length > 0) || (Array.isArray(functions) && functions.length > 0);
};

/**
 * The most prompt tokens `request` (a client's request body, parsed, in any protocol the gateway
 * speaks) can cost on any upstream. Always at least the fixed prompt overhead.
 */
export const promptTokenBound = (request: unknown): number =>
  PROMPT_OVERHEAD_TOKENS + (declaresTools(request) ? TOOL_USE_OVERHEAD_TOKENS : 0) + boundOf(request);
