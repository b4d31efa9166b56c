/** PCM audio as the demo produces it: 24 kHz, 16-bit signed little-endian, mono (OpenAI's `pcm` format). */
export const DEMO_SAMPLE_RATE = 24_000;

/** A RIFF/WAVE header for `dataBytes` of 16-bit mono PCM at `sampleRate`. */
export const wavHeader = (dataBytes: number, sampleRate = DEMO_SAMPLE_RATE): Buffer => {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
};

/** `count` samples of a sine tone at `frequency` Hz, from sample `start` on, with a short fade in and out. */
export const toneSamples = (
  frequency: number,
  start: number,
  count: number,
  total: number,
  sampleRate = DEMO_SAMPLE_RATE,
): Buffer => {
  const samples = Buffer.alloc(count * 2);
  const fade = Math.min(sampleRate / 100, total / 2);
  for (let index = 0; index < count; index++) {
    const position = start + index;
    const envelope = Math.min(1, position / fade, (total - position) / fade);
    const value = Math.sin((2 * Math.PI * frequency * position) / sampleRate) * envelope * 0.3;
    samples.writeInt16LE(Math.round(value * 32_767), index * 2);
  }
  return samples;
};
