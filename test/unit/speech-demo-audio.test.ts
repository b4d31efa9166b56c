import { demoSpeech } from '../../functions/shared/providers/demo/demo-speech.js';
import { defaultTimeouts } from '../../functions/shared/upstream/upstream-http.js';

const speak = async (input: string, response_format: 'wav' | 'pcm' | 'mp3', speed?: number) => {
  const audio = await demoSpeech.speak({
    request: { model: 'demo-1', input, voice: 'alloy', response_format, ...(speed ? { speed } : {}) },
    upstreamModel: 'demo-1',
    channel: {} as never,
    signal: new AbortController().signal,
    timeouts: defaultTimeouts,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of audio.body) chunks.push(chunk);
  return { contentType: audio.contentType, bytes: Buffer.concat(chunks) };
};

describe('the demo speech', () => {
  it('is a WAV whose data length matches its header, 50 ms a character plus 200 ms', async () => {
    const { bytes, contentType } = await speak('abcd', 'wav');

    expect(contentType).toBe('audio/wav');
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    expect((bytes.length - 44) / 2).toBe(Math.round(0.4 * 24_000));
  });

  it('is the same samples as raw PCM, without the header', async () => {
    const wav = await speak('same', 'wav');
    const pcm = await speak('same', 'pcm');

    expect(pcm.bytes.equals(wav.bytes.subarray(44))).toBe(true);
  });

  it('refuses formats it cannot encode, naming response_format', async () => {
    await expect(speak('x', 'mp3')).rejects.toMatchObject({ status: 400, param: 'response_format' });
  });
});
