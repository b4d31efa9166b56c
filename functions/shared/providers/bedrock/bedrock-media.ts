import type { ContentBlock, DocumentFormat, ImageFormat } from '@aws-sdk/client-bedrock-runtime';
import { invalidValue } from '../../errors.js';

/**
 * Images and documents as Converse blocks. Converse takes media only as bytes in the request (or from
 * S3, which a client cannot name here), so a link is refused with a 400 rather than fetched: the
 * gateway does not download on a client's behalf.
 */

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

const IMAGE_FORMATS: Readonly<Record<string, ImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const DOCUMENT_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

const parseDataUrl = (url: string) => {
  const data = DATA_URL.exec(url);
  return data ? { mediaType: data[1]!.toLowerCase(), bytes: Buffer.from(data[2]!, 'base64') } : undefined;
};

/** An `image_url` part: a base64 data URL of a PNG, JPEG, GIF or WebP image. */
export const toBedrockImage = (url: string, param: string): ContentBlock.ImageMember => {
  const data = parseDataUrl(url);
  if (!data) {
    throw invalidValue(
      `Invalid value for '${param}': this model is served by Amazon Bedrock, which takes images inline only. Send the image as a base64 data URL (data:image/png;base64,...) instead of a link.`,
      param,
    );
  }
  const format = IMAGE_FORMATS[data.mediaType];
  if (!format)
    throw invalidValue(
      `Invalid value for '${param}': Amazon Bedrock takes PNG, JPEG, GIF and WebP images, not '${data.mediaType}'.`,
      param,
    );
  return { image: { format, source: { bytes: data.bytes } } };
};

// Bedrock allows letters, digits, single spaces, hyphens, parentheses and square brackets in a name.
const documentName = (filename: string | undefined, fallback: string): string => {
  const base = (filename ?? '').replace(/\.[^.]*$/, '');
  const cleaned = base
    .replace(/[^A-Za-z0-9\s()[\]-]+/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned || fallback;
};

/** A `file` part: a base64 data URL of a document Converse reads (PDF, Office, CSV, HTML, text) or an image. */
export const toBedrockFile = (
  file: { filename?: string; file_data?: string },
  param: string,
  fallbackName: string,
): ContentBlock => {
  const data = file.file_data ? parseDataUrl(file.file_data) : undefined;
  if (!data) {
    throw invalidValue(
      `Invalid value for '${param}': Amazon Bedrock takes files inline only; send them as base64 'file_data', not by file_id.`,
      param,
    );
  }
  if (IMAGE_FORMATS[data.mediaType]) return toBedrockImage(file.file_data!, param);
  const format = DOCUMENT_FORMATS[data.mediaType];
  if (!format)
    throw invalidValue(
      `Invalid value for '${param}': Amazon Bedrock does not take files of type '${data.mediaType}'.`,
      param,
    );
  return { document: { format, name: documentName(file.filename, fallbackName), source: { bytes: data.bytes } } };
};
