import { createHash } from 'node:crypto';
import type { WireRoute } from './fake-upstream.js';

/** 200 KB of deterministic noise: what the fake's speech endpoint "speaks", whatever the input. */
export const fakeSpeechAudio: Buffer = (() => {
  const blocks: Buffer[] = [];
  for (let index = 0; blocks.length * 32 < 200 * 1024; index++)
    blocks.push(createHash('sha256').update(`audio-${index}`).digest());
  return Buffer.concat(blocks).subarray(0, 200 * 1024);
})();

const contentTypes: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** OpenAI's `POST /v1/audio/speech`: binary audio, written in 16 KB pieces as a vendor streams it. */
const speech: WireRoute = async ({ request, response, fault }) => {
  response.writeHead(200, { 'content-type': contentTypes[request.body?.response_format ?? 'mp3'] ?? 'audio/mpeg' });
  response.flushHeaders();
  for (let offset = 0, piece = 0; offset < fakeSpeechAudio.length; offset += 16 * 1024, piece++) {
    if (response.destroyed) return;
    if (fault?.kind === 'cut-mid-stream' && piece === fault.afterEvents) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      response.socket?.destroy();
      return;
    }
    if (fault?.kind === 'stall-mid-stream' && piece === fault.afterEvents) return;
    if (fault?.kind === 'slow-stream' && piece > 0) await new Promise((resolve) => setTimeout(resolve, fault.gapMs));
    response.write(fakeSpeechAudio.subarray(offset, offset + 16 * 1024));
  }
  response.end();
};

export const openAiSpeechRoutes: Record<string, WireRoute> = {
  'POST /v1/audio/speech': speech,
};
