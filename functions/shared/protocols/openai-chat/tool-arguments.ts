import { parseNestedJson } from '../../http/json-depth.js';

/** A tool call's JSON-string arguments as an object (Anthropic's `input`, Gemini's `args`); `{}` when they are not one. */
export const parseToolInput = (text: string): unknown => {
  try {
    const parsed: unknown = parseNestedJson(text || '{}');
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
};
